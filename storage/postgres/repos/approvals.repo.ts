// Approval rows on PostgreSQL (storage/repos/approvals.repo.ts's functions, async).
import type { Approval, ApprovalDecision, NewApproval } from '../../records/approvals.js';
import { postgresCodec } from '../../row-codec.js';
import { approvalFromRow, approvalToRow, type ApprovalRow } from '../../rows/approvals.js';
import { json, many, one, run, write, type Queryable } from './sql.js';

const fromRow = (r: ApprovalRow): Approval => approvalFromRow(r, postgresCodec);

export function createPostgresApprovalsRepo(q: Queryable) {
  return {
    async insert(approval: NewApproval): Promise<void> {
      const a = approvalToRow(approval, postgresCodec);
      await write(
        q,
        `INSERT INTO approvals (id, org_id, session_id, execution_id, tool_call_id, kind, routing, tool, args, status, initiated_by, decided_by, comment, edited, edited_args, created_at, decided_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, NULL, NULL, false, NULL, $11, NULL)`,
        [a.id, a.org_id, a.session_id, a.execution_id, a.tool_call_id, a.kind, a.routing, a.tool, a.args, a.initiated_by, a.created_at],
      );
    },
    approval: (id: string) => one(q, 'SELECT * FROM approvals WHERE id = $1', [id], fromRow),
    /** The session's waiting approval of any kind (executions run in order, so there is at most one). */
    pendingOfSession: (sessionId: string) =>
      one(q, `SELECT * FROM approvals WHERE session_id = $1 AND status = 'pending' ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT 1`, [sessionId], fromRow),
    /** Every waiting approval of an organization, oldest first (callers filter by what the reader may see). */
    pendingOfOrganization: (orgId: string): Promise<Approval[]> =>
      many(q, `SELECT * FROM approvals WHERE org_id = $1 AND status = 'pending' ORDER BY created_at, id COLLATE "C"`, [orgId], fromRow),
    /** Records the decision; false when the approval was no longer pending (nothing written). */
    decide: async (id: string, decision: ApprovalDecision, now: number): Promise<boolean> =>
      (await run(
        q,
        `UPDATE approvals SET status = $1, decided_by = $2, comment = $3, edited = $4, edited_args = $5, decided_at = $6
         WHERE id = $7 AND status = 'pending'`,
        [decision.status, decision.decidedBy, decision.comment, decision.editedArgs !== null, decision.editedArgs === null ? null : json(decision.editedArgs), now, id],
      )) > 0,
    /** Closes a pending approval nobody decided: `rejected` with no decider. False when it was no longer pending. */
    close: async (id: string, comment: string, now: number): Promise<boolean> =>
      (await run(q, `UPDATE approvals SET status = 'rejected', decided_by = NULL, comment = $1, decided_at = $2 WHERE id = $3 AND status = 'pending'`, [comment, now, id])) > 0,
  };
}
