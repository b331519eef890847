// Decides, per subscriber of a firing, whether its session starts (and with what), or why it is skipped or failed.
/*
 * SPEC Trigger firing rules 2–5 and "Caller credentials rules" 5, 6, 9. Checks in order, each ending the
 * subscriber's part with a Run history result while the others go on:
 *   entitlement off (partner override, else the automation's default)  -> skipped ENTITLEMENT_DISABLED
 *   no published version                                               -> skipped NOT_PUBLISHED
 *   a caller-identity binding without caller material (rule 4)         -> failed  CALLER_CREDENTIALS_REQUIRED
 *   the session starter refuses (e.g. a flow input that fails its declared inputs) -> failed with its code
 * A started subscriber receives only the credentials of the integrations it binds at caller identity (rule 5).
 */
import { isAutomationEntitled } from '../partners/entitlements.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import type { SubscriberOutcome } from '../../machines/trigger-firing.machine.js';
import type { Trigger } from '../../storage/records/triggers.js';
import { errorMessage } from '../actors/actor-failure.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PlannedStart, SessionStarter, StartSessionRequest } from '../sessions/contracts.js';
import { narrowCredentials, planTargetIdentities, type NormalizedCallerCredentials } from '../vault/index.js';
import { agentMessageFor } from './agent-message.js';
import type { BindingsReader } from './subscriber-bindings.js';

export interface SubscriberPlan {
  readonly automationId: string;
  readonly position: number;
  readonly outcome: SubscriberOutcome;
  readonly code: string | null;
  /** Safe to show: names rules and integration ids, never values. */
  readonly reason: string | null;
  /** Set when the outcome is `started`. */
  readonly start: PlannedStart | null;
  /** Integration ids whose caller credentials this subscriber received. */
  readonly usedIntegrationIds: readonly string[];
}

export interface FiringContext {
  readonly orgId: string;
  /** The key owner (null for schedule and event firings: rule 7, no caller credentials). */
  readonly actorUserId: string | null;
  readonly origin: StartSessionRequest['origin'];
  readonly trigger: Trigger;
  readonly runId: string;
  readonly input: Record<string, unknown>;
  readonly credentials: NormalizedCallerCredentials | null;
  readonly credentialExpiresAt: number | null;
}

export interface SubscriberPlanner {
  plan(firing: FiringContext): Promise<SubscriberPlan[]>;
}

const NO_CREDENTIALS: NormalizedCallerCredentials = Object.freeze({ integrations: Object.freeze({}) });

export function createSubscriberPlanner(deps: {
  repos: Pick<PortRepositories, 'triggers' | 'automations' | 'sessions' | 'entitlements'>;
  bindings: BindingsReader;
  starter: SessionStarter;
  logger: Pick<Logger, 'error'>;
}): SubscriberPlanner {
  const { repos, starter } = deps;

  async function planOne(firing: FiringContext, automationId: string, position: number): Promise<SubscriberPlan> {
    const result = (outcome: SubscriberOutcome, code: string | null, reason: string | null): SubscriberPlan =>
      ({ automationId, position, outcome, code, reason, start: null, usedIntegrationIds: [] });
    const automation = await repos.automations.automation(automationId);
    if (automation === undefined || automation.orgId !== firing.orgId) return result('skipped', 'NOT_FOUND', 'The subscribed automation no longer exists.');
    if (!(await isAutomationEntitled(repos, firing.orgId, automation))) {
      return result('skipped', 'ENTITLEMENT_DISABLED', 'The automation is not entitled for this organization.');
    }
    const belt = await deps.bindings(automation);
    if (belt === undefined) {
      // An archived automation has no published pointer (runtime/manage/automation-manager.service.ts): same code, clearer reason.
      return result('skipped', 'NOT_PUBLISHED', automation.archivedAt != null ? 'The automation is archived.' : 'The automation has no published version.');
    }

    const credentials = firing.credentials ?? NO_CREDENTIALS;
    const identities = planTargetIdentities(belt, credentials);
    if (identities.refusedIntegrationIds.length > 0) {
      return result('failed', 'CALLER_CREDENTIALS_REQUIRED', `Caller credentials are required for: ${identities.refusedIntegrationIds.join(', ')}.`);
    }
    const narrowed = narrowCredentials(credentials, belt).credentials;
    const used = Object.keys(narrowed.integrations);

    const request: StartSessionRequest = {
      orgId: firing.orgId,
      automationId: automation.id,
      actorUserId: firing.actorUserId,
      origin: firing.origin,
      visibility: 'domain',
      triggerRunId: firing.runId,
      ...(used.length > 0 ? { callerCredentials: narrowed } : {}),
      ...(used.length > 0 && firing.credentialExpiresAt !== null ? { callerCredentialExpiresAt: firing.credentialExpiresAt } : {}),
    };
    if (automation.kind === 'flow') request.input = firing.input;
    else {
      const told = agentMessageFor(firing.trigger.name, firing.input);
      if ('refusal' in told) return result('failed', 'VALIDATION', told.refusal);
      request.message = told.message;
    }
    try {
      const start = await starter.plan(request, { automation, entitled: true });
      return { automationId, position, outcome: 'started', code: null, reason: null, start, usedIntegrationIds: used };
    } catch (error) {
      if (error instanceof AppError) return result('failed', error.code, error.message);
      // A starter bug must not stop the other subscribers; the stack goes to the log, never to Run history.
      deps.logger.error({ automationId, err: errorMessage(error) }, 'session start planning failed');
      return result('failed', 'INTERNAL', 'The session could not be started.');
    }
  }

  return {
    async plan(firing) {
      const plans: SubscriberPlan[] = [];
      // In position order, one at a time: the same reads in the same order as before.
      for (const [position, sub] of (await repos.triggers.subscribers(firing.trigger.id)).entries()) plans.push(await planOne(firing, sub.automationId, position));
      return plans;
    },
  };
}
