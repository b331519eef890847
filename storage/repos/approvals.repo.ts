// Approval rows: the audit trail of gated tool calls (who was asked, who decided, what was edited).
import type { SqliteDatabase } from '../database.js';

export type ApprovalKind = 'turn' | 'run' | 'confirmation';
export type ApprovalRouting = 'policy' | 'user';

export interface ApprovalRow {
  id: string;
  org_id: string;
  session_id: string;
  execution_id: string;
  tool_call_id: string | null;
  kind: ApprovalKind;
  routing: ApprovalRouting;
  tool: string | null;
  /** JSON: the arguments the model proposed (kept as proposed even when an approver edits them). */
  args: string | null;
  status: 'pending' | 'approved' | 'rejected';
  initiated_by: string | null;
  decided_by: string | null;
  comment: string | null;
  edited: number;
  edited_args: string | null;
  created_at: number;
  decided_at: number | null;
}

export function createApprovalsRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO approvals (id, org_id, session_id, execution_id, tool_call_id, kind, routing, tool, args, status, initiated_by, decided_by, comment, edited, edited_args, created_at, decided_at)
       VALUES (@id, @org_id, @session_id, @execution_id, @tool_call_id, @kind, @routing, @tool, @args, 'pending', @initiated_by, NULL, NULL, 0, NULL, @created_at, NULL)`,
    ),
    byId: db.prepare('SELECT * FROM approvals WHERE id = ?'),
    pendingOfSession: db.prepare(`SELECT * FROM approvals WHERE session_id = ? AND status = 'pending' ORDER BY created_at DESC, id DESC LIMIT 1`),
    // Partial index approvals_pending (org_id, status): oldest first, the order a work queue reads in.
    pendingOfOrg: db.prepare(`SELECT * FROM approvals WHERE org_id = ? AND status = 'pending' ORDER BY created_at, id`),
    decide: db.prepare(
      `UPDATE approvals SET status = @status, decided_by = @decided_by, comment = @comment, edited = @edited, edited_args = @edited_args, decided_at = @now
       WHERE id = @id AND status = 'pending'`,
    ),
    close: db.prepare(`UPDATE approvals SET status = 'rejected', decided_by = NULL, comment = @comment, decided_at = @now WHERE id = @id AND status = 'pending'`),
  };
  return {
    insert: (row: Omit<ApprovalRow, 'status' | 'decided_by' | 'comment' | 'edited' | 'edited_args' | 'decided_at'>): void => void s.insert.run(row),
    approval: (id: string) => s.byId.get(id) as ApprovalRow | undefined,
    /** The session's waiting approval of any kind (executions run in order, so there is at most one). */
    pendingOfSession: (sessionId: string) => s.pendingOfSession.get(sessionId) as ApprovalRow | undefined,
    /** Every waiting approval of an organization, oldest first (callers filter by what the reader may see). */
    pendingOfOrganization: (orgId: string) => s.pendingOfOrg.all(orgId) as ApprovalRow[],
    /** Records the decision; false when the approval was no longer pending (nothing written). */
    decide(id: string, decision: { status: 'approved' | 'rejected'; decidedBy: string; comment: string | null; editedArgs: string | null }, now: number): boolean {
      return (
        s.decide.run({
          id,
          status: decision.status,
          decided_by: decision.decidedBy,
          comment: decision.comment,
          edited: decision.editedArgs === null ? 0 : 1,
          edited_args: decision.editedArgs,
          now,
        }).changes > 0
      );
    },
    /**
     * Closes a pending approval nobody decided (its turn was cancelled or its window expired): stored as `rejected`
     * with no decider, so a later decision on its id is a conflict. False when it was no longer pending.
     */
    close: (id: string, comment: string, now: number): boolean => s.close.run({ id, comment, now }).changes > 0,
  };
}

export type ApprovalsRepo = ReturnType<typeof createApprovalsRepo>;
