// Closes what an execution leaves open when it ends without running on: unfinished tool calls and its pending approval.
import type { StepUnit } from '../actors/index.js';
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
export async function closeOpenWork(
  tx: StepUnit,
  deps: { bus: Pick<SessionEventBus, 'append'> },
  ids: { sessionId: string; executionId: string },
  closedBy: ClosedBy,
  now: number,
): Promise<SessionEventEnvelope[]> {
  const { executions, approvals } = tx.repos;
  const out: SessionEventEnvelope[] = [];
  for (const call of await executions.openToolCalls(ids.executionId)) {
    await executions.finishToolCall(call.id, { status: 'failed', result: null, errorCode: closedBy.code, errorMessage: null }, now);
    out.push(
      ...(await deps.bus.append(tx, ids.sessionId, {
        type: 'tool_call.finished',
        executionId: ids.executionId,
        toolCallId: call.id,
        toolName: call.tool,
        status: 'failed',
        errorCode: closedBy.code,
        identity: call.identity,
        durationMs: Math.max(0, now - call.createdAt),
      })),
    );
    if (call.approvalId !== null) await approvals.close(call.approvalId, closedBy.approvalComment, now);
  }
  // An approval row without a call row (a confirmation) is closed too: approvals are per session, one at a time.
  const approval = await approvals.pendingOfSession(ids.sessionId);
  if (approval !== undefined && approval.executionId === ids.executionId) await approvals.close(approval.id, closedBy.approvalComment, now);
  return out;
}

export interface ClosedRunDeps {
  bus: Pick<SessionEventBus, 'append'>;
  grants: Pick<CallerGrants, 'discard'>;
  clock: Clock;
  deadlines?: Pick<ApprovalDeadlines, 'disarm'>;
}

/**
 * Inside a unit of work: settles a flow run (which has no turn machine) the way the flow trail settles a failed
 * one, with its open work closed. Null when it already settled (the caller decides what that means).
 */
export async function settleClosedRun(
  tx: StepUnit,
  deps: ClosedRunDeps,
  ids: { sessionId: string; executionId: string },
  closedBy: ClosedBy,
  outcome: 'failed' | 'cancelled',
): Promise<SessionEventEnvelope[] | null> {
  const { repos } = tx;
  const row = await repos.executions.execution(ids.executionId);
  if (row === undefined || row.settledAt !== null) return null;
  const now = deps.clock.now();
  const out = await closeOpenWork(tx, deps, ids, closedBy, now);
  await repos.executions.settle(ids.executionId, 'failed', now, closedBy.code, null);
  await deps.grants.discard(repos, ids.executionId);
  await deps.deadlines?.disarm(repos, ids.executionId);
  await repos.sessions.touchSession(ids.sessionId, now);
  out.push(...(await deps.bus.append(tx, ids.sessionId, { type: 'turn.completed', executionId: ids.executionId, outcome, errorCode: closedBy.code })));
  return out;
}
