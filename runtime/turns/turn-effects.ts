// The rows and stream events each fact a session-turn step emits stands for, written in that step's unit of work.
import type { ActorStep, StepUnit } from '../actors/index.js';
import type { Clock } from '../clock.js';
import type { SessionEventBus, SessionEventEnvelope } from '../events/index.js';
import type { sessionTurnMachine } from '../../machines/session-turn.machine.js';
import type { ApprovalDeadlines } from './approval-deadlines.js';
import type { CallerGrants } from './caller-grants.js';
import { markStarted } from './settled-before-start.js';

export type TurnStep = ActorStep<typeof sessionTurnMachine>;

export interface TurnEffectsDeps {
  bus: SessionEventBus;
  grants: CallerGrants;
  clock: Clock;
  /** The approval window's timer: armed at suspension, disarmed on resume or settle (absent in some unit tests). */
  deadlines?: ApprovalDeadlines;
}

export interface TurnStepFacts {
  /** The gated tool call of a suspension (the stream names it). */
  toolCallId?: string | null;
  /** Recorded on a failed execution; never an upstream message (those can quote secrets). */
  errorMessage?: string | null;
}

/**
 * Runs inside the step's unit of work (`tx`), so the execution row, the grant deletion and the events commit with
 * the snapshot. Returns the stored events (the unit's outbox publishes them after commit).
 */
export async function applyTurnStep(tx: StepUnit, deps: TurnEffectsDeps, sessionId: string, step: TurnStep, facts: TurnStepFacts = {}): Promise<SessionEventEnvelope[]> {
  const { executions, sessions } = tx.repos;
  const now = deps.clock.now();
  const out: SessionEventEnvelope[] = [];
  const append = async (event: Parameters<SessionEventBus['append']>[2]) => void out.push(...(await deps.bus.append(tx, sessionId, event)));
  for (const fact of step.emitted) {
    switch (fact.type) {
      case 'turn.queued':
        // Whoever queued the turn wrote its rows (message, grant) in the same unit.
        break;
      case 'turn.started':
        await markStarted(executions, fact.executionId, now);
        await append({ type: 'turn.started', executionId: fact.executionId, resumed: step.before?.matches('resumeQueued') === true });
        break;
      case 'turn.suspended':
        await executions.setStatus(fact.executionId, 'suspended', now);
        await deps.deadlines?.arm(tx.repos, fact.executionId, now);
        await append({ type: 'turn.suspended', executionId: fact.executionId, approvalId: fact.approvalId, toolName: fact.toolName, toolCallId: facts.toolCallId ?? null });
        break;
      case 'turn.resumeQueued':
        await executions.setStatus(fact.executionId, 'resume_queued', now);
        await deps.deadlines?.disarm(tx.repos, fact.executionId);
        break;
      case 'turn.settled':
        // A cancelled turn is stored as failed with code CANCELLED (docs/decisions.md "Cancelled executions in storage").
        await executions.settle(fact.executionId, fact.outcome === 'cancelled' ? 'failed' : fact.outcome, now, fact.code, fact.outcome === 'failed' ? (facts.errorMessage ?? null) : null);
        // Rule 7: caller material is deleted when the execution settles (secure_delete zeroes the freed pages).
        await deps.grants.discard(tx.repos, fact.executionId);
        // Only a suspended turn has an approval window open (resuming closed it): no timer read on every settle.
        if (step.before?.matches('suspended') === true) await deps.deadlines?.disarm(tx.repos, fact.executionId);
        await sessions.touchSession(sessionId, now);
        await append({ type: 'turn.completed', executionId: fact.executionId, outcome: fact.outcome, errorCode: fact.code });
        break;
    }
  }
  return out;
}
