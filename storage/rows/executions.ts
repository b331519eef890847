// The executions, tool_calls and caller_grants tables' rows and their mappings to records, one for both drivers.
import type {
  CallerGrant, Execution, ExecutionStatus, NewExecution, NewToolCall, ToolCall, ToolCallIdentity, ToolCallStatus,
} from '../records/executions.js';
import type { RowCodec } from '../row-codec.js';

export interface ExecutionRow {
  id: string;
  session_id: string;
  position: number;
  status: ExecutionStatus;
  /** JSON: a flow's input object; `{}` for agent turns. */
  input: unknown;
  error_code: string | null;
  error_message: string | null;
  created_by: string | null;
  created_at: number;
  updated_at: number;
  settled_at: number | null;
  revision: number | null;
  entry: string;
  steps_used: number;
  tokens_used: number;
  run_ms: number;
  started_at: number | null;
  /** JSON array of integration ids. */
  grant_integration_ids: unknown;
  grant_expires_at: number | null;
}

/** `result` is JSON text kept verbatim (PostgreSQL's json column is read back as `result::text`). */
export interface ToolCallRow {
  id: string;
  execution_id: string;
  session_id: string;
  step: number;
  tool: string;
  /** JSON of the arguments. */
  args: unknown;
  edited: unknown;
  identity: ToolCallIdentity;
  status: ToolCallStatus;
  result: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  finished_at: number | null;
  call_ref: string | null;
  integration_id: string | null;
  readonly: unknown;
  approval_id: string | null;
}

export interface CallerGrantRow {
  id: string;
  org_id: string;
  execution_id: string;
  key_id: string;
  wrapped_key: Buffer;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
  /** JSON array of integration ids. */
  integration_ids: unknown;
  expires_at: number | null;
  created_at: number;
}

/** A JSON array of ids; anything else reads as none (a grant that names nothing holds nothing). */
function idsColumn(value: unknown, codec: RowCodec): readonly string[] {
  const parsed = codec.json(value);
  return Array.isArray(parsed) ? (parsed as string[]) : [];
}

export const executionFromRow = (r: ExecutionRow, codec: RowCodec): Execution => ({
  id: r.id,
  sessionId: r.session_id,
  position: r.position,
  status: r.status,
  input: codec.json(r.input),
  errorCode: r.error_code,
  errorMessage: r.error_message,
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  settledAt: r.settled_at,
  revision: r.revision,
  entry: r.entry,
  stepsUsed: r.steps_used,
  tokensUsed: r.tokens_used,
  runMs: r.run_ms,
  startedAt: r.started_at,
  grantIntegrationIds: idsColumn(r.grant_integration_ids, codec),
  grantExpiresAt: r.grant_expires_at,
});

/** The insert's parameters (position is assigned by the statement, the usage counters start at their defaults). */
export const executionToRow = (e: NewExecution, codec: RowCodec) => ({
  id: e.id,
  session_id: e.sessionId,
  status: e.status,
  input: codec.toJson(e.input),
  created_by: e.createdBy,
  created_at: e.createdAt,
  revision: e.revision,
  entry: e.entry,
  grant_integration_ids: codec.toJson(e.grantIntegrationIds),
  grant_expires_at: e.grantExpiresAt,
});

export const toolCallFromRow = (r: ToolCallRow, codec: RowCodec): ToolCall => ({
  id: r.id,
  executionId: r.execution_id,
  sessionId: r.session_id,
  step: r.step,
  tool: r.tool,
  args: codec.json(r.args),
  edited: codec.bool(r.edited),
  identity: r.identity,
  status: r.status,
  result: r.result,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
  callRef: r.call_ref,
  integrationId: r.integration_id,
  readonly: codec.bool(r.readonly),
  approvalId: r.approval_id,
});

/** The insert's parameters (step is assigned by the statement; outcome columns start NULL). */
export const toolCallToRow = (c: NewToolCall, codec: RowCodec) => ({
  id: c.id,
  execution_id: c.executionId,
  session_id: c.sessionId,
  tool: c.tool,
  args: codec.toJson(c.args),
  edited: codec.toBool(c.edited),
  identity: c.identity,
  status: c.status,
  created_at: c.createdAt,
  call_ref: c.callRef,
  integration_id: c.integrationId,
  readonly: codec.toBool(c.readonly),
  approval_id: c.approvalId,
});

export const grantFromRow = (r: CallerGrantRow, codec: RowCodec): CallerGrant => ({
  id: r.id,
  orgId: r.org_id,
  executionId: r.execution_id,
  keyId: r.key_id,
  wrappedKey: r.wrapped_key,
  iv: r.iv,
  tag: r.tag,
  ciphertext: r.ciphertext,
  integrationIds: idsColumn(r.integration_ids, codec),
  expiresAt: r.expires_at,
  createdAt: r.created_at,
});

export const grantToRow = (g: CallerGrant, codec: RowCodec) => ({
  id: g.id,
  org_id: g.orgId,
  execution_id: g.executionId,
  key_id: g.keyId,
  wrapped_key: g.wrappedKey,
  iv: g.iv,
  tag: g.tag,
  ciphertext: g.ciphertext,
  integration_ids: codec.toJson(g.integrationIds),
  expires_at: g.expiresAt,
  created_at: g.createdAt,
});
