// The approvals table's row and its mapping to the Approval record, one for both drivers (storage/row-codec.ts).
import type { Approval, ApprovalKind, ApprovalRouting, ApprovalStatus, NewApproval } from '../records/approvals.js';
import type { RowCodec } from '../row-codec.js';

export interface ApprovalRow {
  id: string;
  org_id: string;
  session_id: string;
  execution_id: string;
  tool_call_id: string | null;
  kind: ApprovalKind;
  routing: ApprovalRouting;
  tool: string | null;
  /** JSON: the arguments the model proposed (SQLite text, PostgreSQL json). */
  args: unknown;
  status: ApprovalStatus;
  initiated_by: string | null;
  decided_by: string | null;
  comment: string | null;
  edited: unknown;
  edited_args: unknown;
  created_at: number;
  decided_at: number | null;
}

/** A nullable JSON column: SQL NULL stays null. */
const jsonOrNull = (value: unknown, codec: RowCodec): unknown => (value === null ? null : codec.json(value));

export const approvalFromRow = (r: ApprovalRow, codec: RowCodec): Approval => ({
  id: r.id,
  orgId: r.org_id,
  sessionId: r.session_id,
  executionId: r.execution_id,
  toolCallId: r.tool_call_id,
  kind: r.kind,
  routing: r.routing,
  tool: r.tool,
  args: jsonOrNull(r.args, codec),
  status: r.status,
  initiatedBy: r.initiated_by,
  decidedBy: r.decided_by,
  comment: r.comment,
  edited: codec.bool(r.edited),
  editedArgs: jsonOrNull(r.edited_args, codec),
  createdAt: r.created_at,
  decidedAt: r.decided_at,
});

/** The insert's parameters: the decision columns start at their pending values in the statement itself. */
export const approvalToRow = (a: NewApproval, codec: RowCodec) => ({
  id: a.id,
  org_id: a.orgId,
  session_id: a.sessionId,
  execution_id: a.executionId,
  tool_call_id: a.toolCallId,
  kind: a.kind,
  routing: a.routing,
  tool: a.tool,
  args: a.args === null || a.args === undefined ? null : codec.toJson(a.args),
  initiated_by: a.initiatedBy,
  created_at: a.createdAt,
});
