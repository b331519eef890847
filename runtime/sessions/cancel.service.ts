// Cancel a session's queued, running or suspended execution (issue 13 item 1): settle it durably, then abort its run.
/*
 * Order matters: the cancel commits first (execution settled, calls and approval closed, grant deleted,
 * turn.completed `cancelled` stored), then the in-flight run is aborted. A crash in between leaves a settled
 * execution that boot recovery skips; the aborted engine records nothing (it treats the signal as a stop), and
 * any step it still tries is refused by the turn machine, which is final. Idempotency: docs/decisions.md.
 */
import { CANCELLED } from '../../machines/session-turn.machine.js';
import type { ExecutionRow } from '../../storage/repos/executions.repo.js';
import type { Store } from '../../storage/store.js';
import type { Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import type { SessionEventBus, SessionEventEnvelope } from '../events/index.js';
import type { ApprovalDeadlines } from './approval-deadlines.js';
import type { CallerGrants } from './caller-grants.js';
import type { SessionDispatcher } from './dispatcher.js';
import { closeOpenWork, settleClosedRun } from './open-work.js';
import { participation, visibleSession, type Caller } from './session-access.js';
import type { TurnActors } from './turn-actor.js';
import { applyTurnStep } from './turn-effects.js';

export interface CancelServiceDeps {
  store: Pick<Store, 'repos' | 'writer'>;
  clock: Clock;
  bus: SessionEventBus;
  grants: CallerGrants;
  deadlines?: ApprovalDeadlines;
  turns: TurnActors;
  dispatcher: Pick<SessionDispatcher, 'abort' | 'dispatch'>;
}

export interface CancelResult {
  readonly executionId: string;
  readonly status: 'cancelled';
}

const CLOSED_BY = { code: CANCELLED, approvalComment: 'Closed without a decision: the turn was cancelled.' } as const;
const alreadySettled = (row: Pick<ExecutionRow, 'status'>) =>
  new AppError('CONFLICT', 'The execution has already finished; there is nothing to cancel.', { status: row.status });
const isCancelled = (row: Pick<ExecutionRow, 'settled_at' | 'error_code'>) => row.settled_at !== null && row.error_code === CANCELLED;

export function createCancelService(deps: CancelServiceDeps) {
  const { repos } = deps.store;
  const { bus, clock } = deps;

  /** An agent turn: the session-turn machine's CANCEL step, with its rows, in one unit of work. */
  async function cancelTurn(sessionId: string, executionId: string): Promise<SessionEventEnvelope[]> {
    const now = clock.now();
    return deps.turns.transition(executionId, { type: 'CANCEL', now }, (step) => {
      if (!step.changed) throw alreadySettled(repos.executions.execution(executionId) ?? { status: 'completed' });
      return [
        ...closeOpenWork({ repos, bus }, { sessionId, executionId }, CLOSED_BY, now),
        ...applyTurnStep({ repos, bus, grants: deps.grants, clock, deadlines: deps.deadlines }, sessionId, step),
      ];
    });
  }

  /** A flow run has no turn machine: its trail is settled the way the flow runner settles a failed run. */
  async function cancelRun(sessionId: string, executionId: string): Promise<SessionEventEnvelope[]> {
    return deps.store.writer.submit(() => {
      const out = settleClosedRun({ repos, bus, grants: deps.grants, clock, deadlines: deps.deadlines }, { sessionId, executionId }, CLOSED_BY, 'cancelled');
      if (out === null) throw alreadySettled(repos.executions.execution(executionId) ?? { status: 'completed' });
      return out;
    });
  }

  return {
    /**
     * `executionId` defaults to the session's oldest unsettled execution (the one its queue waits on). Visible
     * (else 404), drivable by the caller (else 403, as for appending a message). Cancelling an execution that is
     * already cancelled answers the same body again; one that finished otherwise, or an idle session, is 409.
     */
    async cancel(caller: Caller, sessionId: string, executionId?: string): Promise<CancelResult> {
      const session = visibleSession(repos, caller, sessionId);
      // Appending's permission half: a closed session or an unpublished agent must not keep work from stopping.
      if (participation(repos, caller, session).readOnlyReason === 'not_a_participant') {
        throw new AppError('SESSION_NOT_DRIVABLE', 'You cannot cancel work in this session.', { readOnlyReason: 'not_a_participant' });
      }
      const target = executionId === undefined ? repos.executions.firstUnsettled(sessionId) : repos.executions.execution(executionId);
      if (target === undefined || target.session_id !== sessionId) {
        if (executionId !== undefined) throw notFound();
        throw new AppError('CONFLICT', 'Nothing is queued, running or waiting for approval in this session.');
      }
      if (isCancelled(target)) return { executionId: target.id, status: 'cancelled' };
      if (target.settled_at !== null) throw alreadySettled(target);

      const automation = repos.automations.automation(session.automation_id);
      try {
        // Its events are published by the unit's outbox at commit.
        await (automation?.kind === 'flow' ? cancelRun(sessionId, target.id) : cancelTurn(sessionId, target.id));
      } catch (error) {
        // Raced with another cancel of the same execution: same answer as a repeat.
        const now = repos.executions.execution(target.id);
        if (now !== undefined && isCancelled(now)) return { executionId: target.id, status: 'cancelled' };
        throw error;
      }
      // The in-flight model or tool call sees its signal abort; the session's queue then moves on to the next execution.
      void deps.dispatcher.abort(target.id);
      deps.dispatcher.dispatch(sessionId);
      return { executionId: target.id, status: 'cancelled' };
    },
  };
}

export type CancelService = ReturnType<typeof createCancelService>;
