// Owns the bounds of one outbound tool call (timeout, response size) and maps transport failures to tool failures.
import { TransportError } from './http-transport.js';
import type { ToolFailure } from './tool-result.js';

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_USER_AGENT = 'switchyard-tools/1';

/** Makes the signal that fires after `ms`; injectable so tests decide when a call times out instead of waiting. */
export type TimeoutSignalFactory = (ms: number) => AbortSignal;
export const systemTimeoutSignal: TimeoutSignalFactory = (ms) => AbortSignal.timeout(ms);

export interface CallLimits {
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
  readonly timeoutSignal?: TimeoutSignalFactory;
}

export interface CallSignal {
  readonly signal: AbortSignal;
  /** True when the call's own deadline fired (as opposed to the caller cancelling the turn). */
  timedOut(): boolean;
}

export function callSignal(limits: CallLimits, outer?: AbortSignal): CallSignal {
  const timeout = (limits.timeoutSignal ?? systemTimeoutSignal)(limits.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
  return { signal: outer ? AbortSignal.any([timeout, outer]) : timeout, timedOut: () => timeout.aborted };
}

/** Network-level outcomes of a call, all ordinary tool failures (never retried under another identity). */
export function failureFromTransport(err: unknown, timedOut: boolean, timeoutMs: number): ToolFailure {
  if (!(err instanceof TransportError)) throw err;
  // A deadline that fires mid-body can surface as a dropped response; the deadline is the cause either way.
  if (timedOut && (err.kind === 'aborted' || err.kind === 'unavailable')) {
    return { ok: false, code: 'TOOL_TIMEOUT', message: `The tool call did not finish within ${timeoutMs} ms.` };
  }
  switch (err.kind) {
    case 'aborted':
      return { ok: false, code: 'TOOL_CANCELLED', message: 'The tool call was cancelled.' };
    case 'too_large':
      return { ok: false, code: 'RESPONSE_TOO_LARGE', message: err.message };
    case 'refused_destination':
      return { ok: false, code: 'DESTINATION_REFUSED', message: err.message };
    case 'unavailable':
      return { ok: false, code: 'UPSTREAM_UNAVAILABLE', message: err.message };
  }
}
