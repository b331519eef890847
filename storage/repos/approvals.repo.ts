// Approval rows: the audit trail of gated tool calls (who was asked, who decided, what was edited).
import type { SqliteDatabase } from '../database.js';
import { jsonColumn, mapOptional } from '../row-mapping.js';
import type { Approval, ApprovalDecision, ApprovalKind, ApprovalRouting, ApprovalStatus, NewApproval } from '../records/approvals.js';

interface ApprovalRow {
  id: string;
  org_id: string;
  session_id: string;
  execution_id: string;
  tool_call_id: string | null;
  kind: ApprovalKind;
  routing: ApprovalRouting;
  tool: string | null;
  /** JSON: the arguments the model proposed. */
  args: string | null;
  status: ApprovalStatus;
  initiated_by: string | null;
  decided_by: string | null;
  comment: string | null;
  edited: number;
  edited_args: string | null;
  created_at: number;
  decided_at: number | null;
}

const jsonOrNull = (text: string | null): unknown => (text === null ? null : jsonColumn(text));

const approvalFromRow = (r: ApprovalRow): Approval => ({
  id: r.id,
  orgId: r.org_id,
  sessionId: r.session_id,
  executionId: r.execution_id,
  toolCallId: r.tool_call_id,
  kind: r.kind,
  routing: r.routing,
  tool: r.tool,
  args: jsonOrNull(r.args),
  status: r.status,
  initiatedBy: r.initiated_by,
  decidedBy: r.decided_by,
  comment: r.comment,
  edited: r.edited === 1,
  editedArgs: jsonOrNull(r.edited_args),
  createdAt: r.created_at,
  decidedAt: r.decided_at,
});

/** The insert's parameters: the decision columns start at their pending values in the statement itself. */
const approvalToRow = (a: NewApproval): Omit<ApprovalRow, 'status' | 'decided_by' | 'comment' | 'edited' | 'edited_args' | 'decided_at'> => ({
  id: a.id,
  org_id: a.orgId,
  session_id: a.sessionId,
  execution_id: a.executionId,
  tool_call_id: a.toolCallId,
  kind: a.kind,
  routing: a.routing,
  tool: a.tool,
  args: a.args === null || a.args === undefined ? null : JSON.stringify(a.args),
  initiated_by: a.initiatedBy,
  created_at: a.createdAt,
});

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
    insert: (approval: NewApproval): void => void s.insert.run(approvalToRow(approval)),
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
