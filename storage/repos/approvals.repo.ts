// Approval rows: the audit trail of gated tool calls (who was asked, who decided, what was edited).
import type { SqliteDatabase } from '../database.js';
import { mapOptional } from '../row-mapping.js';
import { sqliteCodec } from '../row-codec.js';
import type { Approval, ApprovalDecision, NewApproval } from '../records/approvals.js';
import { approvalFromRow as fromRow, approvalToRow, type ApprovalRow } from '../rows/approvals.js';

const approvalFromRow = (r: ApprovalRow): Approval => fromRow(r, sqliteCodec);

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
    insert: (approval: NewApproval): void => void s.insert.run(approvalToRow(approval, sqliteCodec)),
    approval: (id: string) => mapOptional(s.byId.get(id), approvalFromRow),
    /** The session's waiting approval of any kind (executions run in order, so there is at most one). */
    pendingOfSession: (sessionId: string) => mapOptional(s.pendingOfSession.get(sessionId), approvalFromRow),
    /** Every waiting approval of an organization, oldest first (callers filter by what the reader may see). */
    pendingOfOrganization: (orgId: string): Approval[] => (s.pendingOfOrg.all(orgId) as ApprovalRow[]).map(approvalFromRow),
    /** Records the decision; false when the approval was no longer pending (nothing written). */
    decide(id: string, decision: ApprovalDecision, now: number): boolean {
      return (
        s.decide.run({
          id,
          status: decision.status,
          decided_by: decision.decidedBy,
          comment: decision.comment,
          edited: decision.editedArgs === null ? 0 : 1,
          edited_args: decision.editedArgs === null ? null : JSON.stringify(decision.editedArgs),
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
