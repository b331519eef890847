// Executions (turns), their tool calls, and the sealed caller grants bound to them.
import type { SqliteDatabase } from '../database.js';
import { mapOptional } from '../row-mapping.js';
import { sqliteCodec } from '../row-codec.js';
import type {
  CallerGrant, Execution, ExecutionStatus, NewExecution, NewToolCall, ToolCall, ToolCallIdentity, ToolCallOutcome,
} from '../records/executions.js';
import * as rows from '../rows/executions.js';

type ToolCallRow = rows.ToolCallRow;
const executionFromRow = (r: rows.ExecutionRow): Execution => rows.executionFromRow(r, sqliteCodec);
/** Exported for the session list's tool-call pages (storage-internal). */
export const toolCallFromRow = (r: ToolCallRow): ToolCall => rows.toolCallFromRow(r, sqliteCodec);
const grantFromRow = (r: rows.CallerGrantRow): CallerGrant => rows.grantFromRow(r, sqliteCodec);

const UNSETTLED = `('queued', 'running', 'suspended', 'resume_queued')`;

export function createExecutionsRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO executions (id, session_id, position, status, input, created_by, created_at, updated_at, revision, entry, grant_integration_ids, grant_expires_at)
       SELECT @id, @session_id, COALESCE(MAX(position), 0) + 1, @status, @input, @created_by, @created_at, @created_at, @revision, @entry, @grant_integration_ids, @grant_expires_at
       FROM executions WHERE session_id = @session_id
       RETURNING position`,
    ).pluck(),
    byId: db.prepare('SELECT * FROM executions WHERE id = ?'),
    latest: db.prepare('SELECT * FROM executions WHERE session_id = ? ORDER BY position DESC LIMIT 1'),
    firstUnsettled: db.prepare(`SELECT * FROM executions WHERE session_id = ? AND status IN ${UNSETTLED} ORDER BY position LIMIT 1`),
    unsettledSessions: db.prepare(`SELECT DISTINCT session_id FROM executions WHERE status IN ('queued', 'running', 'resume_queued')`).pluck(),
    countQueued: db.prepare(`SELECT COUNT(*) FROM executions WHERE status = 'queued'`).pluck(),
    // A settled execution never becomes unsettled again (a cancel can land while its run is still writing).
    setStatus: db.prepare('UPDATE executions SET status = ?, updated_at = ? WHERE id = ? AND settled_at IS NULL'),
    markStarted: db.prepare(`UPDATE executions SET status = 'running', started_at = COALESCE(started_at, @now), updated_at = @now WHERE id = @id AND settled_at IS NULL`),
    settle: db.prepare(
      `UPDATE executions SET status = @status, error_code = @error_code, error_message = @error_message, settled_at = @now, updated_at = @now,
         grant_integration_ids = '[]' WHERE id = @id AND settled_at IS NULL`,
    ),
    addUsage: db.prepare(
      'UPDATE executions SET steps_used = steps_used + @steps, tokens_used = tokens_used + @tokens, run_ms = run_ms + @ms, updated_at = @now WHERE id = @id',
    ),
    setGrantFacts: db.prepare('UPDATE executions SET grant_integration_ids = ?, grant_expires_at = ?, updated_at = ? WHERE id = ?'),
    insertCall: db.prepare(
      `INSERT INTO tool_calls (id, execution_id, session_id, step, tool, args, edited, identity, status, result, error_code, error_message, created_at, finished_at, call_ref, integration_id, readonly, approval_id)
       SELECT @id, @execution_id, @session_id, COALESCE(MAX(step), 0) + 1, @tool, @args, @edited, @identity, @status, NULL, NULL, NULL, @created_at, NULL, @call_ref, @integration_id, @readonly, @approval_id
       FROM tool_calls WHERE execution_id = @execution_id`,
    ),
    callByRef: db.prepare('SELECT * FROM tool_calls WHERE execution_id = ? AND call_ref = ?'),
    callById: db.prepare('SELECT * FROM tool_calls WHERE id = ?'),
    openCallsOf: db.prepare(`SELECT * FROM tool_calls WHERE execution_id = ? AND status IN ('pending', 'awaiting_approval', 'running') ORDER BY step`),
    callsOfSession: db.prepare('SELECT * FROM tool_calls WHERE session_id = ? ORDER BY created_at, execution_id, step'),
    setCallArgs: db.prepare('UPDATE tool_calls SET args = ?, edited = ? WHERE id = ?'),
    startCall: db.prepare(`UPDATE tool_calls SET status = 'running', args = @args, edited = @edited, identity = @identity WHERE id = @id`),
    finishCall: db.prepare(
      `UPDATE tool_calls SET status = @status, result = @result, error_code = @error_code, error_message = @error_message, finished_at = @now,
         identity = COALESCE(@identity, identity) WHERE id = @id`,
    ),
    insertGrant: db.prepare(
      `INSERT INTO caller_grants (id, org_id, execution_id, key_id, wrapped_key, iv, tag, ciphertext, integration_ids, expires_at, created_at)
       VALUES (@id, @org_id, @execution_id, @key_id, @wrapped_key, @iv, @tag, @ciphertext, @integration_ids, @expires_at, @created_at)`,
    ),
    grantOf: db.prepare('SELECT * FROM caller_grants WHERE execution_id = ? ORDER BY created_at DESC, id DESC LIMIT 1'),
    deleteGrants: db.prepare('DELETE FROM caller_grants WHERE execution_id = ?'),
  };

  return {
    /** Inserts the session's next execution (position = last + 1) and returns its position. */
    insertExecution(execution: NewExecution): number {
      // RETURNING: one statement per start instead of an insert and a read-back (every open and fire runs this).
      return s.insert.get(rows.executionToRow(execution, sqliteCodec)) as number;
    },
    execution: (id: string) => mapOptional(s.byId.get(id), executionFromRow),
    latestExecution: (sessionId: string) => mapOptional(s.latest.get(sessionId), executionFromRow),
    /** The oldest execution of the session that has not settled: the one the session's queue waits on. */
    firstUnsettled: (sessionId: string) => mapOptional(s.firstUnsettled.get(sessionId), executionFromRow),
    /** Sessions with work to resume at boot (queued, running or resume-queued executions). */
    sessionsWithRunnableWork: () => s.unsettledSessions.all() as string[],
    /** Executions accepted and not yet picked up (boot: the admission queue's starting depth). */
    countQueued: () => s.countQueued.get() as number,
    setStatus: (id: string, status: ExecutionStatus, now: number): void => void s.setStatus.run(status, now, id),
    /** False when the execution has settled (a cancel won the race with its start): nothing is written then. */
    markStarted: (id: string, now: number): boolean => s.markStarted.run({ id, now }).changes > 0,
    /** The execution's status, its row held for the unit on PostgreSQL; SQLite's one writer already orders units. */
    statusForUpdate: (id: string): ExecutionStatus | undefined => (s.byId.get(id) as { status: ExecutionStatus } | undefined)?.status,
    settle: (id: string, status: 'completed' | 'failed' | 'rejected', now: number, errorCode: string | null, errorMessage: string | null): void =>
      void s.settle.run({ id, status, now, error_code: errorCode, error_message: errorMessage }),
    addUsage: (id: string, usage: { steps: number; tokens: number; ms: number }, now: number): void =>
      void s.addUsage.run({ id, steps: usage.steps, tokens: usage.tokens, ms: usage.ms, now }),
    setGrantFacts: (id: string, integrationIds: readonly string[], expiresAt: number | null, now: number): void =>
      void s.setGrantFacts.run(JSON.stringify(integrationIds), expiresAt, now, id),

    insertToolCall(call: NewToolCall): ToolCall {
      s.insertCall.run(rows.toolCallToRow(call, sqliteCodec));
      return toolCallFromRow(s.callById.get(call.id) as ToolCallRow);
    },
    toolCallByRef: (executionId: string, callRef: string) => mapOptional(s.callByRef.get(executionId, callRef), toolCallFromRow),
    toolCall: (id: string) => mapOptional(s.callById.get(id), toolCallFromRow),
    /** Calls of the execution that have not finished (a cancel fails them). */
    openToolCalls: (executionId: string): ToolCall[] => (s.openCallsOf.all(executionId) as ToolCallRow[]).map(toolCallFromRow),
    toolCallsOfSession: (sessionId: string): ToolCall[] => (s.callsOfSession.all(sessionId) as ToolCallRow[]).map(toolCallFromRow),
    /** An approver's edited arguments, recorded when decided (the call runs with them later). */
    setToolCallArgs: (id: string, args: unknown, edited: boolean): void => void s.setCallArgs.run(JSON.stringify(args), edited ? 1 : 0, id),
    startToolCall: (id: string, args: unknown, edited: boolean, identity: ToolCallIdentity): void =>
      void s.startCall.run({ id, args: JSON.stringify(args), edited: edited ? 1 : 0, identity }),
    finishToolCall(id: string, outcome: ToolCallOutcome, now: number): void {
      s.finishCall.run({ id, status: outcome.status, result: outcome.result, error_code: outcome.errorCode, error_message: outcome.errorMessage, identity: outcome.identity ?? null, now });
    },

    insertGrant: (grant: CallerGrant): void => void s.insertGrant.run(rows.grantToRow(grant, sqliteCodec)),
    grantOf: (executionId: string) => mapOptional(s.grantOf.get(executionId), grantFromRow),
    /** Removes every grant of the execution (secure_delete zeroes the freed pages); returns how many went. */
    deleteGrants: (executionId: string): number => s.deleteGrants.run(executionId).changes,
  };
}

export type ExecutionsRepo = ReturnType<typeof createExecutionsRepo>;
