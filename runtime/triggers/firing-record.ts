// One trigger firing driven through the trigger-firing machine to `recorded`, and its Run history rows.
/*
 * Every subscriber's result is decided before the fire's unit of work commits, so the shared durable step
 * (runtime/actors/durable-step.ts) takes the machine accepted -> fanningOut -> recorded in one call, and the
 * record it reached is the Run history row (trigger_runs, with the subscriber results inline), written in that
 * unit: a final actor takes no more steps, so no snapshot row is kept for it.
 */
import {
  triggerFiringMachine,
  type FiringOutcome,
  type TriggerFiringEmitted,
  type TriggerFiringEvent,
} from '../../machines/trigger-firing.machine.js';
import type { NewClaim } from '../../storage/records/fire-claims.js';
import type { RunSource } from '../../storage/records/trigger-runs.js';
import type { PortRepositories } from '../../storage/port/storage.js';

type TriggerRunsRepo = Pick<PortRepositories['triggerRuns'], 'insertRun'>;
import { durableMachine } from '../actors/durable-step.js';
import { AppError } from '../errors.js';
import type { SubscriberPlan } from './fire-subscribers.js';

export interface FiringFacts {
  readonly runId: string;
  readonly triggerId: string;
  readonly orgId: string;
  readonly source: RunSource;
  readonly firedBy: string | null;
  readonly idempotencyKey: string | null;
  readonly acceptedAt: number;
  /** Integration ids the request carried caller credentials for (ids only). */
  readonly suppliedIntegrationIds: readonly string[];
}

export interface RecordedFiring {
  readonly outcome: FiringOutcome;
  readonly unusedIntegrationIds: readonly string[];
  /** Writes the Run history row, with the fire's claim and the session starts left to the materializer; inside the fire's unit of work. */
  write(runs: TriggerRunsRepo, extra?: { claim: NewClaim | null; pending: readonly unknown[] | null }): Promise<void>;
}

const durable = durableMachine(triggerFiringMachine);

export function recordFiring(facts: FiringFacts, plans: readonly SubscriberPlan[]): RecordedFiring {
  const now = facts.acceptedAt;
  const events: TriggerFiringEvent[] = [
    { type: 'FAN_OUT', now, subscriberIds: plans.map((p) => p.automationId) },
    ...plans.map(
      (p): TriggerFiringEvent => ({
        type: 'SUBSCRIBER_RESULT',
        now,
        subscriberId: p.automationId,
        outcome: p.outcome,
        ...(p.code !== null ? { code: p.code } : {}),
        ...(p.start !== null ? { sessionId: p.start.sessionId } : {}),
        usedIntegrationIds: p.usedIntegrationIds,
      }),
    ),
  ];
  const step = durable.start(
    { firingId: facts.runId, triggerId: facts.triggerId, acceptedAt: now, suppliedIntegrationIds: facts.suppliedIntegrationIds },
    events,
  );
  const recorded = step.emitted.find((e: TriggerFiringEmitted) => e.type === 'firing.recorded');
  if (!step.snapshot.matches('recorded') || recorded === undefined) {
    throw new AppError('INTERNAL', 'The trigger-firing machine did not record the firing.');
  }
  return {
    outcome: recorded.outcome,
    unusedIntegrationIds: recorded.unusedIntegrationIds,
    async write(runs, extra) {
      await runs.insertRun({
        claim: extra?.claim ?? null,
        pending: extra?.pending ?? null,
        id: facts.runId,
        triggerId: facts.triggerId,
        orgId: facts.orgId,
        source: facts.source,
        firedBy: facts.firedBy,
        outcome: recorded.outcome,
        unusedCredentialIntegrations: recorded.unusedIntegrationIds,
        idempotencyKey: facts.idempotencyKey,
        createdAt: now,
        results: plans.map((p) => ({
          automationId: p.automationId,
          position: p.position,
          status: p.outcome,
          code: p.code,
          reason: p.reason,
          sessionId: p.start?.sessionId ?? null,
        })),
      });
    },
  };
}
