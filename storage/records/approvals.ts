// Domain records for approvals: the audit trail of gated tool calls (storage/repos/approvals.repo.ts maps them).

export type ApprovalKind = 'turn' | 'run' | 'confirmation';
export type ApprovalRouting = 'policy' | 'user';
export type ApprovalStatus = 'pending' | 'approved' | 'rejected';

export interface Approval {
  id: string;
  orgId: string;
  sessionId: string;
  executionId: string;
  toolCallId: string | null;
  kind: ApprovalKind;
  routing: ApprovalRouting;
  tool: string | null;
  /** The arguments the model proposed (kept as proposed even when an approver edits them); null when none were. */
  args: unknown;
  status: ApprovalStatus;
  initiatedBy: string | null;
  decidedBy: string | null;
  comment: string | null;
  /** Whether the approver edited the arguments; `editedArgs` then holds them (else null). */
  edited: boolean;
  editedArgs: unknown;
  createdAt: number;
  decidedAt: number | null;
}

/** What an insert writes: every approval starts pending, undecided and unedited. */
export type NewApproval = Omit<Approval, 'status' | 'decidedBy' | 'comment' | 'edited' | 'editedArgs' | 'decidedAt'>;

export interface ApprovalDecision {
  status: 'approved' | 'rejected';
  decidedBy: string;
  comment: string | null;
  /** The approver's arguments, or null when they approved (or rejected) the proposed ones. */
  editedArgs: Record<string, unknown> | null;
}
