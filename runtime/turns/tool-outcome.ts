// How one tool call's outcome is stored (tool_calls row) and shown to the model (tool message), without secrets.
import type { ToolResult as ModelToolResult } from '../models/index.js';
import type { ToolResult } from '../tools/index.js';

/** Failures the engine decides itself, before or instead of an upstream call. */
export type EngineFailureCode =
  | 'CALLER_CREDENTIAL_EXPIRED'
  | 'CALLER_CREDENTIALS_REQUIRED'
  | 'CONNECTION_NOT_CONFIGURED'
  | 'CREDENTIAL_UNAVAILABLE'
  /** The service restarted while a non-readonly call was in flight: it may have reached the upstream, so it is not repeated. */
  | 'INTERRUPTED'
  | 'UNKNOWN_TOOL'
  | 'INVALID_TOOL_CALL'
  | 'TOOL_FAILED';

export type CallResult = ToolResult | { readonly ok: false; readonly code: EngineFailureCode; readonly message: string };

/** A call's outcome as the engine records it; `identity` says whose authority it ran with, never which credential. */
export interface CallOutcome {
  readonly result: CallResult;
  readonly identity: 'caller' | 'organization' | null;
  readonly durationMs: number;
  /** Set when the call failed on caller custody (stream event caller_credential.failed). */
  readonly credentialFailure?: { readonly integrationId: string; readonly code: 'CALLER_CREDENTIALS_REQUIRED' | 'CALLER_CREDENTIAL_EXPIRED' };
}

const DETAIL_MAX = 2_000;

/** A failed outcome that never reached an upstream (refused before the call, or after an interruption). */
export function failedOutcome(code: EngineFailureCode, message: string, extra: Partial<Omit<CallOutcome, 'result'>> = {}): CallOutcome {
  return { result: { ok: false, code, message }, identity: extra.identity ?? null, durationMs: extra.durationMs ?? 0, credentialFailure: extra.credentialFailure };
}

export function modelResult(result: CallResult): ModelToolResult {
  if (result.ok) return { ok: true, output: result.output };
  let message = result.message;
  if ('detail' in result && result.detail !== undefined) {
    const detail = typeof result.detail === 'string' ? result.detail : JSON.stringify(result.detail);
    message += ` Detail: ${detail.length > DETAIL_MAX ? `${detail.slice(0, DETAIL_MAX)}…` : detail}`;
  }
  return { ok: false, error: { code: result.code, message } };
}

/** The tool_calls.result column: the output on success, the bounded detail (or null) on failure. */
export function storedResult(result: CallResult): string | null {
  if (result.ok) return JSON.stringify(result.output ?? null);
  if ('detail' in result && result.detail !== undefined) return JSON.stringify({ detail: result.detail });
  if ('issues' in result) return JSON.stringify({ issues: result.issues });
  return null;
}
