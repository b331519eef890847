// Executions (turns), their tool calls and sealed caller grants on PostgreSQL (storage/repos/executions.repo.ts's functions, async).
import type {
  CallerGrant, Execution, ExecutionStatus, NewExecution, NewToolCall, ToolCall, ToolCallIdentity, ToolCallOutcome,
} from '../../records/executions.js';
import { postgresCodec } from '../../row-codec.js';
import * as rows from '../../rows/executions.js';
import { lockSession } from './sessions.repo.js';
import { insert, json, many, one, run, scalar, write, type Queryable } from './sql.js';

const executionFromRow = (r: rows.ExecutionRow): Execution => rows.executionFromRow(r, postgresCodec);
/** Exported for the session list's tool-call pages. */
export const toolCallFromRow = (r: rows.ToolCallRow): ToolCall => rows.toolCallFromRow(r, postgresCodec);
const grantFromRow = (r: rows.CallerGrantRow): CallerGrant => rows.grantFromRow(r, postgresCodec);

/** Every tool_calls column; `result` (json) as the very text written. Exported for the session list's pages. */
export const TOOL_CALL_COLUMNS =
  'id, execution_id, session_id, step, tool, args, edited, identity, status, result::text AS result, error_code, error_message, created_at, finished_at, call_ref, integration_id, readonly, approval_id';

const UNSETTLED = `('queued', 'running', 'suspended', 'resume_queued')`;

export function createPostgresExecutionsRepo(q: Queryable) {
  return {
    /**
     * Inserts the session's next execution (position = last + 1) and returns its position. The session's row lock
     * (lockSession) orders concurrent accepts on different nodes, so both get a position; UNIQUE (session_id,
     * position) would otherwise fail the second one rather than number two turns alike.
     */
    async insertExecution(execution: NewExecution): Promise<number> {
      const e = rows.executionToRow(execution, postgresCodec);
      await lockSession(q, e.session_id);
      return (await scalar<number>(
        q,
        `INSERT INTO executions (id, session_id, position, status, input, created_by, created_at, updated_at, revision, entry, grant_integration_ids, grant_expires_at)
         VALUES ($1, $2, (SELECT COALESCE(MAX(position), 0) + 1 FROM executions WHERE session_id = $2), $3, $4, $5, $6, $6, $7, $8, $9, $10)
         RETURNING position`,
        [e.id, e.session_id, e.status, e.input, e.created_by, e.created_at, e.revision, e.entry, e.grant_integration_ids, e.grant_expires_at],
      ))!;
    },
    execution: (id: string) => one(q, 'SELECT * FROM executions WHERE id = $1', [id], executionFromRow),
    latestExecution: (sessionId: string) => one(q, 'SELECT * FROM executions WHERE session_id = $1 ORDER BY position DESC LIMIT 1', [sessionId], executionFromRow),
    /** The oldest execution of the session that has not settled: the one the session's queue waits on. */
    firstUnsettled: (sessionId: string) =>
      one(q, `SELECT * FROM executions WHERE session_id = $1 AND status IN ${UNSETTLED} ORDER BY position LIMIT 1`, [sessionId], executionFromRow),
    /** Sessions with work to resume at boot (queued, running or resume-queued executions). */
    sessionsWithRunnableWork: (): Promise<string[]> =>
      many(q, `SELECT DISTINCT session_id FROM executions WHERE status IN ('queued', 'running', 'resume_queued')`, [], (r: { session_id: string }) => r.session_id),
    /** Executions accepted and not yet picked up (boot: the admission queue's starting depth). */
    countQueued: async (): Promise<number> => (await scalar<number>(q, `SELECT COUNT(*) FROM executions WHERE status = 'queued'`, []))!,
    // A settled execution never becomes unsettled again (a cancel can land while its run is still writing).
    setStatus: (id: string, status: ExecutionStatus, now: number): Promise<void> =>
      write(q, 'UPDATE executions SET status = $1, updated_at = $2 WHERE id = $3 AND settled_at IS NULL', [status, now, id]),
    /** False when the execution has settled (a cancel won the race with its start): nothing is written then. */
    markStarted: async (id: string, now: number): Promise<boolean> =>
      (await run(q, `UPDATE executions SET status = 'running', started_at = COALESCE(started_at, $1), updated_at = $1 WHERE id = $2 AND settled_at IS NULL`, [now, id])) > 0,
    /**
     * The execution's status, its row locked until the unit's transaction ends: a start (markStarted) waiting on it
     * reads the outcome of the unit that holds it.
     */
    statusForUpdate: async (id: string): Promise<ExecutionStatus | undefined> =>
      (await one(q, 'SELECT status FROM executions WHERE id = $1 FOR UPDATE', [id], (r: { status: ExecutionStatus }) => r.status)),
    settle: (id: string, status: 'completed' | 'failed' | 'rejected', now: number, errorCode: string | null, errorMessage: string | null): Promise<void> =>
      write(
        q,
        `UPDATE executions SET status = $1, error_code = $2, error_message = $3, settled_at = $4, updated_at = $4,
           grant_integration_ids = '[]' WHERE id = $5 AND settled_at IS NULL`,
        [status, errorCode, errorMessage, now, id],
      ),
    addUsage: (id: string, usage: { steps: number; tokens: number; ms: number }, now: number): Promise<void> =>
      write(
        q,
        'UPDATE executions SET steps_used = steps_used + $1, tokens_used = tokens_used + $2, run_ms = run_ms + $3, updated_at = $4 WHERE id = $5',
        [usage.steps, usage.tokens, usage.ms, now, id],
      ),
    setGrantFacts: (id: string, integrationIds: readonly string[], expiresAt: number | null, now: number): Promise<void> =>
      write(q, 'UPDATE executions SET grant_integration_ids = $1, grant_expires_at = $2, updated_at = $3 WHERE id = $4', [json(integrationIds), expiresAt, now, id]),

    /**
     * Step = the execution's last + 1, returned with the row in one statement. Only the execution's runner (one
     * node, under its lease) writes its calls; should two ever race, UNIQUE (execution_id, step) fails the second
     * rather than numbering two calls alike.
     */
    async insertToolCall(call: NewToolCall): Promise<ToolCall> {
      const c = rows.toolCallToRow(call, postgresCodec);
      return (await one(
        q,
        `INSERT INTO tool_calls (id, execution_id, session_id, step, tool, args, edited, identity, status, created_at, call_ref, integration_id, readonly, approval_id)
         VALUES ($1, $2, $3, (SELECT COALESCE(MAX(step), 0) + 1 FROM tool_calls WHERE execution_id = $2), $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         RETURNING ${TOOL_CALL_COLUMNS}`,
        [c.id, c.execution_id, c.session_id, c.tool, c.args, c.edited, c.identity, c.status, c.created_at, c.call_ref, c.integration_id, c.readonly, c.approval_id],
        toolCallFromRow,
      ))!;
    },
    toolCallByRef: (executionId: string, callRef: string) =>
      one(q, `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE execution_id = $1 AND call_ref = $2`, [executionId, callRef], toolCallFromRow),
    toolCall: (id: string) => one(q, `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE id = $1`, [id], toolCallFromRow),
    /** Calls of the execution that have not finished (a cancel fails them). */
    openToolCalls: (executionId: string): Promise<ToolCall[]> =>
      many(
        q,
        `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE execution_id = $1 AND status IN ('pending', 'awaiting_approval', 'running') ORDER BY step`,
        [executionId],
        toolCallFromRow,
      ),
    toolCallsOfSession: (sessionId: string): Promise<ToolCall[]> =>
      many(q, `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE session_id = $1 ORDER BY created_at, execution_id COLLATE "C", step`, [sessionId], toolCallFromRow),
    /** An approver's edited arguments, recorded when decided (the call runs with them later). */
    setToolCallArgs: (id: string, args: unknown, edited: boolean): Promise<void> =>
      write(q, 'UPDATE tool_calls SET args = $1, edited = $2 WHERE id = $3', [json(args), edited, id]),
    startToolCall: (id: string, args: unknown, edited: boolean, identity: ToolCallIdentity): Promise<void> =>
      write(q, `UPDATE tool_calls SET status = 'running', args = $1, edited = $2, identity = $3 WHERE id = $4`, [json(args), edited, identity, id]),
    finishToolCall: (id: string, outcome: ToolCallOutcome, now: number): Promise<void> =>
      write(
        q,
        `UPDATE tool_calls SET status = $1, result = $2, error_code = $3, error_message = $4, finished_at = $5,
           identity = COALESCE($6, identity) WHERE id = $7`,
        [outcome.status, outcome.result, outcome.errorCode, outcome.errorMessage, now, outcome.identity ?? null, id],
      ),

    insertGrant: (grant: CallerGrant): Promise<void> => insert(q, 'caller_grants', rows.grantToRow(grant, postgresCodec)),
    grantOf: (executionId: string) =>
      one(q, 'SELECT * FROM caller_grants WHERE execution_id = $1 ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT 1', [executionId], grantFromRow),
    /** Removes every grant of the execution; returns how many went. */
    deleteGrants: (executionId: string): Promise<number> => run(q, 'DELETE FROM caller_grants WHERE execution_id = $1', [executionId]),
  };
}
