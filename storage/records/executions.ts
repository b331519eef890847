// Domain records for executions (turns), their tool calls and sealed caller grants (storage/repos/executions.repo.ts maps them).

export type ExecutionStatus = 'queued' | 'running' | 'suspended' | 'resume_queued' | 'completed' | 'failed' | 'rejected';
export type ToolCallStatus = 'pending' | 'awaiting_approval' | 'running' | 'succeeded' | 'failed' | 'rejected';
/** Whose credential a call ran with; null until it starts. */
export type ToolCallIdentity = 'caller' | 'organization' | null;

export interface Execution {
  id: string;
  sessionId: string;
  /** Order within the session, 1-based, assigned at insert. */
  position: number;
  status: ExecutionStatus;
  /** A flow's input object; `{}` for agent turns (their message is a message). */
  input: unknown;
  errorCode: string | null;
  errorMessage: string | null;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
  settledAt: number | null;
  revision: number | null;
  entry: string;
  stepsUsed: number;
  tokensUsed: number;
  runMs: number;
  startedAt: number | null;
  /** Integration ids the execution's caller grant holds entries for (never material); emptied when it settles. */
  grantIntegrationIds: readonly string[];
  grantExpiresAt: number | null;
}

export type NewExecution = Pick<
  Execution, 'id' | 'sessionId' | 'status' | 'input' | 'createdBy' | 'createdAt' | 'revision' | 'entry' | 'grantIntegrationIds' | 'grantExpiresAt'
>;

export interface ToolCall {
  id: string;
  executionId: string;
  sessionId: string;
  /** Per-execution call number, 1-based. */
  step: number;
  tool: string;
  /** The arguments the call runs (or ran) with; edited ones when an approver changed them. */
  args: unknown;
  edited: boolean;
  identity: ToolCallIdentity;
  status: ToolCallStatus;
  /**
   * JSON text of the output (success) or failure detail, already redacted. Kept as text: only a flow's replay reads
   * it (runtime/flows/flow-runner.ts), and the session reads and pages that list calls must not parse every output.
   */
  result: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: number;
  finishedAt: number | null;
  callRef: string | null;
  integrationId: string | null;
  readonly: boolean;
  approvalId: string | null;
}

export type NewToolCall = Pick<
  ToolCall, 'id' | 'executionId' | 'sessionId' | 'tool' | 'args' | 'edited' | 'identity' | 'status' | 'createdAt' | 'callRef' | 'integrationId' | 'readonly' | 'approvalId'
>;

export interface ToolCallOutcome {
  status: 'succeeded' | 'failed' | 'rejected';
  /** JSON text of the redacted output or failure detail (see ToolCall.result). */
  result: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  identity?: ToolCallIdentity;
}

/** A caller grant sealed to one execution: the envelope-encrypted credentials (runtime/vault) and what they cover. */
export interface CallerGrant {
  id: string;
  orgId: string;
  executionId: string;
  keyId: string;
  wrappedKey: Buffer;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
  integrationIds: readonly string[];
  expiresAt: number | null;
  createdAt: number;
}
