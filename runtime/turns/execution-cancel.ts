// Stopping one execution for good (issue 13 item 1): settle it durably with its open work closed, then abort its run.
/*
 * Order matters: the cancel commits first (execution settled, calls and approval closed, grant deleted,
 * turn.completed `cancelled` stored), then the in-flight run is aborted. A crash in between leaves a settled
 * execution that boot recovery skips; the aborted engine records nothing (it treats the signal as a stop), and
 * any step it still tries is refused by the turn machine, which is final. Idempotency: docs/decisions.md.
 * With N nodes the run may be on another node: the cancel first seizes the session's lease (storage/port/ownership.ts),
 * which fences off every later unit of that run and tells its node to abort it. Decision "Cancel across nodes".
 * A later, queued execution is settled without the lease, its row held first in the unit: the owner's start waits on
 * it and is refused once it settled (settled-before-start.ts); started first, it is cancelled as the running one.
 * Decision "A cancel racing a queued execution".
 */
import { CANCELLED } from '../../machines/session-turn.machine.js';
import type { SessionOwnership } from '../../storage/port/ownership.js';
import type { AutomationKind } from '../../storage/records/automations.js';
import type { Execution } from '../../storage/records/executions.js';
import type { StepUnit } from '../actors/index.js';
import { AppError } from '../errors.js';
import type { SessionDispatcher } from './dispatcher.js';
import { closeOpenWork, settleClosedRun } from './open-work.js';
import { createTurnMover, type TurnMoverDeps } from './turn-mover.js';

export interface ExecutionCancelDeps extends TurnMoverDeps {
  dispatcher: Pick<SessionDispatcher, 'abort' | 'dispatch'>;
  /** N nodes (PostgreSQL): whose lease the cancel takes; absent on one process. */
  ownership?: Pick<SessionOwnership, 'seize'>;
}

/** Its owner started the execution after the cancel found it queued behind another one: cancel it as the running one. */
class StartedMeanwhile extends Error {}

/** Work run first in the cancel's unit (N nodes, a later execution: its row held, still queued or already settled). */
type Guard = (tx: StepUnit) => Promise<void>;

const CLOSED_BY = { code: CANCELLED, approvalComment: 'Closed without a decision: the turn was cancelled.' } as const;

export const alreadySettled = (row: Pick<Execution, 'status'>) =>
  new AppError('CONFLICT', 'The execution has already finished; there is nothing to cancel.', { status: row.status });

export function createExecutionCancel(deps: ExecutionCancelDeps) {
  const { repos } = deps.store;
  const { bus } = deps;
  const settled = async (executionId: string) => alreadySettled((await repos.executions.execution(executionId)) ?? { status: 'completed' });

  /** An agent turn: the session-turn machine's CANCEL step, with its rows, in one unit of work. */
  async function cancelTurn(sessionId: string, executionId: string, guard?: Guard): Promise<void> {
    const now = deps.clock.now();
    const moved = await createTurnMover(deps, { sessionId, executionId }).move(
      { type: 'CANCEL', now },
      { refused: null, always: guard, before: (_step, tx) => closeOpenWork(tx, { bus }, { sessionId, executionId }, CLOSED_BY, now) },
    );
    // Refused by the machine (the turn already settled): nothing was written; the answer reads why.
    if (!moved) throw await settled(executionId);
  }

  /** A flow run has no turn machine: its trail is settled the way the flow runner settles a failed run. */
  async function cancelRun(sessionId: string, executionId: string, guard?: Guard): Promise<void> {
    // Its events are published by the unit's outbox at commit.
    const out = await deps.store.writer.submit(async (tx) => {
      await guard?.(tx);
      return settleClosedRun(tx, { bus, grants: deps.grants, clock: deps.clock, deadlines: deps.deadlines }, { sessionId, executionId }, CLOSED_BY, 'cancelled');
    });
    // Already settled: nothing was written; the answer reads why.
    if (out === null) throw await settled(executionId);
  }

  /**
   * Only the session's oldest unsettled execution can be running somewhere (the queue runs in order); a later one is
   * settled without disturbing the run ahead of it.
   */
  async function runsNow(sessionId: string, executionId: string): Promise<boolean> {
    return (await repos.executions.firstUnsettled(sessionId))?.id === executionId;
  }

  /**
   * The run ahead may finish and the owner start this execution between `runsNow` and the cancel's unit. Holding the
   * execution's row first in the unit orders the two: the owner's start waits and is then refused (the cancel won),
   * or it committed first and the cancel is redone as the owner's (seize, abort), as for a running execution.
   */
  const stillQueued =
    (executionId: string): Guard =>
    async (tx) => {
      const status = await tx.repos.executions.statusForUpdate(executionId);
      if (status === 'running' || status === 'suspended' || status === 'resume_queued') throw new StartedMeanwhile();
    };

  /** Settles as the session's owner: the run on another node can no longer write, so its last step and ours never cross. */
  async function asOwner(sessionId: string, settle: () => Promise<void>): Promise<void> {
    const claim = await deps.ownership!.seize!(sessionId);
    try {
      await claim.run(settle);
    } finally {
      await claim.release();
    }
  }

  return {
    /** Throws `alreadySettled` when the execution finished first (nothing written). */
    async cancel(kind: AutomationKind | undefined, sessionId: string, executionId: string): Promise<void> {
      const settle = (guard?: Guard) => (kind === 'flow' ? cancelRun(sessionId, executionId, guard) : cancelTurn(sessionId, executionId, guard));
      if (deps.ownership?.seize === undefined) await settle();
      else if (await runsNow(sessionId, executionId)) await asOwner(sessionId, () => settle());
      else {
        await settle(stillQueued(executionId)).catch(async (error: unknown) => {
          if (!(error instanceof StartedMeanwhile)) throw error;
          await asOwner(sessionId, () => settle());
        });
      }
      // The in-flight model or tool call sees its signal abort; the session's queue then moves on to the next execution.
      void deps.dispatcher.abort(executionId);
      deps.dispatcher.dispatch(sessionId);
    },
  };
}

export type ExecutionCancel = ReturnType<typeof createExecutionCancel>;
