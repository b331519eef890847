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

/** What the machine's `firing.recorded` says: the Run history outcome and the supplied-but-unused integrations. */
export interface FiringVerdict {
  readonly outcome: FiringOutcome;
  readonly unusedIntegrationIds: readonly string[];
}

/** The machine's fold of one firing, accepted -> recorded, and what it emitted; throws when it does not record. */
export function foldFiring(facts: FiringFacts, plans: readonly SubscriberPlan[]): FiringVerdict {
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
  return { outcome: recorded.outcome, unusedIntegrationIds: recorded.unusedIntegrationIds };
}

/*
 * The fold's verdict, remembered per shape of firing (~9 % of an accept-only keyed fire's CPU was this fold, the
 * same 4 transitions for every fire of a trigger). The machine's guards and actions read, of a firing, only which
 * subscriber ids repeat (the fan-out dedupes them, a repeated result is ignored), each result's outcome and used
 * integration ids, and the supplied ids: ids, times, codes and session ids reach the context but never the
 * outcome. The shape key holds exactly those, so an entry computed by the machine for one firing is the machine's
 * verdict for every firing of that shape; test/runtime/triggers/firing-record.test.ts checks the remembered
 * verdicts against a fresh fold over generated firings. Only firings without supplied credentials are remembered
 * (their integration ids are the caller's choice, so the key space would be theirs too); the map is bounded anyway.
 */
const MAX_REMEMBERED = 256;
const remembered = new Map<string, FiringVerdict>();

/** The shape key of a firing, or null when it is not remembered (caller credentials supplied). */
export function firingShape(facts: FiringFacts, plans: readonly SubscriberPlan[]): string | null {
  if (facts.suppliedIntegrationIds.length > 0) return null;
  let key = '';
  for (let i = 0; i < plans.length; i += 1) {
    const plan = plans[i]!;
    let first = i;
    for (let j = 0; j < i; j += 1) {
      if (plans[j]!.automationId === plan.automationId) {
        first = j;
        break;
      }
    }
    // Used ids are a subset of the (empty) supplied ones; kept in the key so a violation cannot share an entry.
    key += `${first}:${plan.outcome}:${plan.usedIntegrationIds.length === 0 ? '' : JSON.stringify(plan.usedIntegrationIds)};`;
  }
  return key;
}

/** The machine's verdict for this firing: remembered for its shape, else folded (and remembered). */
export function firingVerdict(facts: FiringFacts, plans: readonly SubscriberPlan[]): FiringVerdict {
  const shape = firingShape(facts, plans);
  if (shape === null) return foldFiring(facts, plans);
  const known = remembered.get(shape);
  if (known !== undefined) return known;
  const folded = foldFiring(facts, plans);
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(shape, Object.freeze({ outcome: folded.outcome, unusedIntegrationIds: Object.freeze([...folded.unusedIntegrationIds]) }));
  return folded;
}

export function recordFiring(facts: FiringFacts, plans: readonly SubscriberPlan[]): RecordedFiring {
  const now = facts.acceptedAt;
  const recorded = firingVerdict(facts, plans);
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
