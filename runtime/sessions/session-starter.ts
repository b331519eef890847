// SessionStarter: plans a new session's rows (session, first execution, message or input, sealed grant, snapshot).
import { isAutomationEntitled } from '../partners/entitlements.js';
import type { Automation } from '../../storage/records/automations.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
import type { Clock } from '../clock.js';
import { AppError, forbidden, notFound } from '../errors.js';
import type { SessionEventBus, SessionEventEnvelope } from '../events/index.js';
import { newId } from '../ids.js';
import { narrowCredentials, planTargetIdentities, type NormalizedCallerCredentials } from '../vault/index.js';
import type { CallerGrants } from '../turns/caller-grants.js';
import type { CheckedTarget, PlannedStart, SessionOrigin, SessionStarter, StartSessionRequest } from './contracts.js';
import type { SessionDispatcher } from '../turns/dispatcher.js';
import type { AdmittedStart, SessionEngine } from '../turns/engine.js';
import { pendingStartOf, sessionRowOf } from './pending-starts.js';
import type { PendingStart } from '../execution/materializer.js';

export interface StarterDeps {
  store: Pick<Storage, 'repos'>;
  clock: Clock;
  dispatcher: SessionDispatcher;
  grants: CallerGrants;
  bus: SessionEventBus;
}

/** A start every check has passed: what the unit of work writes. */
export interface AdmittedExecution {
  readonly automation: Automation;
  readonly engine: SessionEngine;
  readonly admitted: AdmittedStart;
  /** Narrowed to the target's caller-bound integrations (rule 6); may be empty. */
  readonly credentials: NormalizedCallerCredentials;
  readonly request: StartSessionRequest;
}

const NO_CREDENTIALS: NormalizedCallerCredentials = { integrations: {} };

/**
 * The checks shared by a new session and a message appended to one: the target's engine admits it, the
 * organization is entitled to it, and every caller-required binding has material (Caller credentials rule 6:
 * "fails rather than running as the organization"). Throws AppError; writes nothing.
 */
export async function admitExecution(deps: Pick<StarterDeps, 'store' | 'dispatcher'>, request: StartSessionRequest, checked?: CheckedTarget): Promise<AdmittedExecution> {
  const { repos } = deps.store;
  const automation = checked?.automation ?? (await repos.automations.automation(request.automationId));
  if (automation === undefined || automation.orgId !== request.orgId || automation.id !== request.automationId) throw notFound();
  const engine = deps.dispatcher.engineFor(automation.kind);
  if (engine === undefined) throw notFound();
  const admitted = await engine.admit(request, automation);
  if (checked?.entitled !== true && !(await isAutomationEntitled(repos, request.orgId, automation))) throw forbidden('This automation is not enabled for your organization.');
  const credentials = narrowCredentials(request.callerCredentials ?? NO_CREDENTIALS, admitted.bindings).credentials;
  const refused = planTargetIdentities(admitted.bindings, credentials).refusedIntegrationIds;
  if (refused.length > 0) {
    throw new AppError('CALLER_CREDENTIALS_REQUIRED', 'This automation needs caller credentials that were not supplied.', { integrationIds: [...refused] });
  }
  return { automation, engine, admitted, credentials, request };
}

/** Inside a unit of work (`tx`): the execution row, its grant, then the engine's rows. Returns the events the unit's outbox publishes at commit. */
export async function writeExecution(
  tx: UnitContext<PortRepositories>,
  deps: Pick<StarterDeps, 'grants'>,
  start: AdmittedExecution,
  ids: { sessionId: string; executionId: string },
  entry: 'open' | 'message',
  now: number,
): Promise<SessionEventEnvelope[]> {
  const { request, automation } = start;
  await tx.repos.executions.insertExecution({
    id: ids.executionId,
    sessionId: ids.sessionId,
    status: 'queued',
    input: automation.kind === 'flow' ? (request.input ?? {}) : {},
    createdBy: request.actorUserId,
    createdAt: now,
    revision: start.admitted.revision,
    entry,
    grantIntegrationIds: [],
    grantExpiresAt: null,
  });
  // A new execution holds no grant and no expiry timer, and its row already says so ('[]', null): storing an empty
  // grant would only run a delete, an update and a timer cancel that change nothing, on every open and fire subscriber.
  if (Object.keys(start.credentials.integrations).length > 0) {
    await deps.grants.store(tx.repos, request.orgId, ids.executionId, start.credentials, request.callerCredentialExpiresAt ?? null);
  }
  // Named fields, not `{ ...ids, ... }`: the materializer passes its whole PendingStart as `ids`, and a spread
  // followed by more properties takes V8's slow path (~5 µs a start on Node 20).
  return start.engine.writeStart(tx, { sessionId: ids.sessionId, executionId: ids.executionId, automation, revision: start.admitted.revision, entry, request, now });
}

export function createSessionStarter(deps: StarterDeps): SessionStarter {
  return {
    async plan(request, checked): Promise<PlannedStart> {
      const start = await admitExecution(deps, request, checked);
      const sessionId = newId();
      const executionId = newId();
      // Caller credentials are sealed at accept, bound to the execution row: such a start is written at once.
      const deferrable = Object.keys(start.credentials.integrations).length === 0;
      return {
        sessionId,
        executionId,
        deferred: deferrable ? (acceptedAt) => pendingStartOf(start, { sessionId, executionId }, acceptedAt) : null,
        async write(tx) {
          const now = deps.clock.now();
          await tx.repos.sessions.insertSession({
            id: sessionId,
            orgId: request.orgId,
            domainId: start.automation.domainId,
            automationId: start.automation.id,
            revision: start.admitted.revision,
            visibility: request.visibility,
            createdBy: request.actorUserId,
            origin: request.origin,
            triggerRunId: request.triggerRunId ?? null,
            status: 'active',
            title: null,
            createdAt: now,
            updatedAt: now,
          });
          // Its events are published by the unit's outbox once the fire's or open's unit commits.
          await writeExecution(tx, deps, start, { sessionId, executionId }, 'open', now);
        },
        dispatch() {
          deps.dispatcher.dispatch(sessionId);
        },
      };
    },
  };
}

/** The materializer's writer: the same rows an eager start writes (session, execution, message or input), by the engines' own code. */
export function createStartWriter(deps: Pick<StarterDeps, 'dispatcher' | 'grants'>) {
  return async (tx: UnitContext<PortRepositories>, start: PendingStart, withSession: boolean): Promise<boolean> => {
    const { repos } = tx;
    const automation = await repos.automations.automation(start.automationId);
    const engine = automation && deps.dispatcher.engineFor(automation.kind);
    // Deleted since the accept: the cascade would have removed the session with it.
    if (automation === undefined || engine === undefined) return false;
    if (withSession) await repos.sessions.insertSession(sessionRowOf(start, null));
    const request: StartSessionRequest = {
      orgId: start.orgId,
      automationId: start.automationId,
      actorUserId: start.actorUserId,
      origin: start.origin as SessionOrigin,
      visibility: start.visibility,
      ...(start.message !== undefined ? { message: start.message } : {}),
      ...(start.input !== undefined ? { input: start.input } : {}),
      ...(start.triggerRunId !== undefined ? { triggerRunId: start.triggerRunId } : {}),
    };
    const admitted: AdmittedExecution = { automation, engine, admitted: { revision: start.revision, bindings: [] }, credentials: NO_CREDENTIALS, request };
    await writeExecution(tx, deps, admitted, start, 'open', start.acceptedAt);
    return true;
  };
}
