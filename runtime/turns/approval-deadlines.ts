// The approval window of a suspended turn: a durable timer armed at suspension that fails the turn APPROVAL_EXPIRED.
/*
 * Armed in the suspension's unit of work (so it survives a crash with the suspension), disarmed when the turn
 * resumes or settles. At boot the scheduler delivers a timer whose due time passed while the process was down.
 * A stale timer (the turn moved on meanwhile) finds nothing pending and is marked fired without effect.
 */
import { APPROVAL_EXPIRED } from '../../machines/session-turn.machine.js';
import type { Scheduler, TimerRepos } from '../scheduler/index.js';
import type { SessionDispatcher } from './dispatcher.js';
import { closeOpenWork, settleClosedRun } from './open-work.js';
import { createTurnMover, type TurnMoverDeps } from './turn-mover.js';

export const APPROVAL_EXPIRY_TIMER = 'approval-expiry';

export interface ApprovalDeadlines {
  /** Inside the suspension's unit of work (its `tx.repos`): the window starts now. */
  arm(repos: TimerRepos, executionId: string, now: number): Promise<void>;
  /** Inside the unit that resumes or settles the turn (its `tx.repos`). */
  disarm(repos: TimerRepos, executionId: string): Promise<void>;
}

export function createApprovalDeadlines(deps: { scheduler: Pick<Scheduler, 'schedule' | 'cancel'>; ttlMs: number }): ApprovalDeadlines {
  return {
    arm: async (repos, executionId, now) => void (await deps.scheduler.schedule(repos, { kind: APPROVAL_EXPIRY_TIMER, targetId: executionId, dueAt: now + deps.ttlMs })),
    disarm: async (repos, executionId) => void (await deps.scheduler.cancel(repos, APPROVAL_EXPIRY_TIMER, executionId)),
  };
}

export interface ApprovalExpiryDeps extends TurnMoverDeps {
  dispatcher: Pick<SessionDispatcher, 'dispatch'>;
  scheduler: Pick<Scheduler, 'on'>;
  deadlines: ApprovalDeadlines;
}

const CLOSED_BY = { code: APPROVAL_EXPIRED, approvalComment: 'Closed without a decision: the approval expired.' } as const;

/**
 * Registers the timer's handler: an agent turn takes its EXPIRE_APPROVAL step with its rows; a flow run (no turn
 * machine) is settled failed the same way. Then the session's queue moves on.
 */
export function handleApprovalExpiry(deps: ApprovalExpiryDeps): void {
  const { repos } = deps.store;
  const { bus, clock } = deps;
  deps.scheduler.on(APPROVAL_EXPIRY_TIMER, async (timer, delivery) => {
    const execution = await repos.executions.execution(timer.targetId);
    if (execution === undefined || execution.status !== 'suspended') return;
    const approval = await repos.approvals.pendingOfSession(execution.sessionId);
    if (approval === undefined || approval.executionId !== execution.id) return;
    const sessionId = execution.sessionId;
    const session = await repos.sessions.session(sessionId);
    const kind = session === undefined ? undefined : (await repos.automations.automation(session.automationId))?.kind;
    const ids = { sessionId, executionId: execution.id };
    if (kind === 'flow') {
      await deps.store.writer.submit(async (tx) => {
        await delivery.markFired(tx.repos);
        return (await settleClosedRun(tx, { bus, grants: deps.grants, clock, deadlines: deps.deadlines }, ids, CLOSED_BY, 'failed')) ?? [];
      });
      deps.dispatcher.dispatch(sessionId);
      return;
    }
    const now = clock.now();
    // A turn that moved on meanwhile refuses the step: the timer is marked fired and nothing else is written.
    await createTurnMover(deps, ids).move(
      { type: 'EXPIRE_APPROVAL', now, approvalId: approval.id },
      { always: (tx) => delivery.markFired(tx.repos), refused: null, before: (_step, tx) => closeOpenWork(tx, { bus }, ids, CLOSED_BY, now) },
    );
    deps.dispatcher.dispatch(sessionId);
  });
}
