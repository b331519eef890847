// Owns the body of the `trigger.run.completed` webhook: the firing, and how each subscriber's work ended.
/*
 * Standard Webhooks shape `{ type, timestamp, data }`. `data.outcome` is the Run history outcome decided at fire
 * time (who started); `data.result` is the same rule (machines/trigger-firing.machine.ts firingOutcome) applied once
 * the work finished, a started session counting as succeeded only if its execution completed. Ids, states and
 * error codes only: never inputs, outputs or credentials.
 */
import { firingOutcome, type FiringOutcome, type SubscriberOutcome } from '../../machines/trigger-firing.machine.js';
import type { TriggerRun } from '../../storage/records/trigger-runs.js';
import type { Trigger } from '../../storage/records/triggers.js';
import type { RunSubscriberState } from '../../storage/records/webhooks.js';
import { toIso } from '../clock.js';

export const RUN_COMPLETED = 'trigger.run.completed';
/** Every event type an endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = [RUN_COMPLETED] as const;

export interface RunSubscriberPayload {
  automationId: string;
  /** What happened when the trigger fired: started, skipped or failed (with `code`). */
  start: 'started' | 'skipped' | 'failed';
  code: string | null;
  sessionId: string | null;
  /** How the started session's execution settled: completed, failed or rejected; null when none started. */
  sessionStatus: string | null;
  errorCode: string | null;
}

export interface RunCompletedPayload {
  type: typeof RUN_COMPLETED;
  timestamp: string;
  data: {
    runId: string;
    triggerId: string;
    triggerName: string | null;
    triggerType: string | null;
    source: string;
    firedAt: string;
    settledAt: string;
    outcome: string;
    result: FiringOutcome;
    subscribers: RunSubscriberPayload[];
  };
}

function finalOutcome(state: RunSubscriberState): SubscriberOutcome {
  if (state.startStatus !== 'started') return state.startStatus;
  return state.executionStatus === 'completed' ? 'started' : 'failed';
}

export function runCompletedPayload(run: TriggerRun, trigger: Trigger | undefined, states: readonly RunSubscriberState[], settledAt: number): RunCompletedPayload {
  return {
    type: RUN_COMPLETED,
    timestamp: toIso(settledAt),
    data: {
      runId: run.id,
      triggerId: run.triggerId,
      triggerName: trigger?.name ?? null,
      triggerType: trigger?.type ?? null,
      source: run.source,
      firedAt: toIso(run.createdAt),
      settledAt: toIso(settledAt),
      outcome: run.outcome,
      result: firingOutcome(states.map(finalOutcome)),
      subscribers: states.map((s) => ({
        automationId: s.automationId,
        start: s.startStatus,
        code: s.code,
        sessionId: s.sessionId,
        sessionStatus: s.startStatus === 'started' ? s.executionStatus : null,
        errorCode: s.startStatus === 'started' ? s.errorCode : null,
      })),
    },
  };
}
