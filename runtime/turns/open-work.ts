// Closes what an execution leaves open when it ends without running on: unfinished tool calls and its pending approval.
import type { Repositories } from '../../storage/repos/index.js';
import type { Clock } from '../clock.js';
import type { SessionEventBus, SessionEventEnvelope } from '../events/index.js';
import type { ApprovalDeadlines } from './approval-deadlines.js';
import type { CallerGrants } from './caller-grants.js';

export interface ClosedBy {
  /** The code the unfinished calls end with (CANCELLED, APPROVAL_EXPIRED). */
  readonly code: string;
  /** Kept on the closed approval's audit row (it has no decider). */
  readonly approvalComment: string;
}

/**
 * Inside the unit of work that settles the execution: every unfinished call fails with `closedBy.code` (its
 * tool_call.finished event stored with it) and the pending approval is closed, so its approvalId then gets 409.
 */
export function closeOpenWork(
  deps: { repos: Pick<Repositories, 'executions' | 'approvals'>; bus: Pick<SessionEventBus, 'append'> },
  ids: { sessionId: string; executionId: string },
  closedBy: ClosedBy,
  now: number,
): SessionEventEnvelope[] {
  const { executions, approvals } = deps.repos;
  const out: SessionEventEnvelope[] = [];
  for (const call of executions.openToolCalls(ids.executionId)) {
    executions.finishToolCall(call.id, { status: 'failed', result: null, errorCode: closedBy.code, errorMessage: null }, now);
    out.push(
      ...deps.bus.append(ids.sessionId, {
        type: 'tool_call.finished',
        executionId: ids.executionId,
        toolCallId: call.id,
        toolName: call.tool,
        status: 'failed',
        errorCode: closedBy.code,
        identity: call.identity,
        durationMs: Math.max(0, now - call.createdAt),
      })(),
    );
    if (call.approvalId !== null) approvals.close(call.approvalId, closedBy.approvalComment, now);
  }
  // An approval row without a call row (a confirmation) is closed too: approvals are per session, one at a time.
  const approval = approvals.pendingOfSession(ids.sessionId);
  if (approval !== undefined && approval.executionId === ids.executionId) approvals.close(approval.id, closedBy.approvalComment, now);
  return out;
}

export interface ClosedRunDeps {
  repos: Pick<Repositories, 'executions' | 'approvals' | 'sessions'>;
  bus: Pick<SessionEventBus, 'append'>;
  grants: Pick<CallerGrants, 'discard'>;
  clock: Clock;
  deadlines?: Pick<ApprovalDeadlines, 'disarm'>;
}

/**
 * Inside a unit of work: settles a flow run (which has no turn machine) the way the flow trail settles a failed
 * one, with its open work closed. Null when it already settled (the caller decides what that means).
 */
export function settleClosedRun(
  deps: ClosedRunDeps,
  ids: { sessionId: string; executionId: string },
  closedBy: ClosedBy,
  outcome: 'failed' | 'cancelled',
): SessionEventEnvelope[] | null {
  const row = deps.repos.executions.execution(ids.executionId);
  if (row === undefined || row.settledAt !== null) return null;
  const now = deps.clock.now();
  const out = closeOpenWork(deps, ids, closedBy, now);
  deps.repos.executions.settle(ids.executionId, 'failed', now, closedBy.code, null);
  deps.grants.discard(ids.executionId);
  deps.deadlines?.disarm(ids.executionId);
  deps.repos.sessions.touchSession(ids.sessionId, now);
  out.push(...deps.bus.append(ids.sessionId, { type: 'turn.completed', executionId: ids.executionId, outcome, errorCode: closedBy.code })());
  return out;
}
