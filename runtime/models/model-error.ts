// Owns the model layer's typed failures: what a turn records as its reason when a model cannot answer.
import { AppError } from '../errors.js';

export type ModelErrorReason =
  /** The model string is malformed or names no known provider prefix. */
  | 'MODEL_UNKNOWN'
  /** The provider exists but this service is not configured for it (no API key / base URL). */
  | 'PROVIDER_NOT_CONFIGURED'
  /** The provider refused the request (4xx other than 408/409/429: bad key, unknown model, bad request). */
  | 'PROVIDER_REJECTED'
  /** The provider could not be reached or was overloaded (network, 408, 409, 429, 5xx); retrying may help. */
  | 'PROVIDER_UNAVAILABLE'
  /** The provider answered with something the SDK could not parse, or failed mid-stream. */
  | 'PROVIDER_RESPONSE_INVALID'
  /** The step's AbortSignal fired (budget wall time, cancellation, shutdown). */
  | 'ABORTED';

export interface ModelErrorInfo {
  /** Provider family (`builtin`, `openai`, `anthropic`, `openai-compatible:<name>`), for the recorded reason. */
  provider?: string;
  /** Upstream HTTP status, when there was one. */
  status?: number;
  retryable?: boolean;
}

/**
 * Not a client mistake, so to the HTTP layer a ModelError is an ordinary INTERNAL AppError (it normally
 * never gets there: the turn engine records `reason` and `message` on the failed execution instead).
 */
export class ModelError extends AppError {
  readonly reason: ModelErrorReason;
  readonly provider: string | undefined;
  readonly upstreamStatus: number | undefined;
  readonly retryable: boolean;

  constructor(reason: ModelErrorReason, message: string, info: ModelErrorInfo = {}) {
    super('INTERNAL', message, {
      reason,
      ...(info.provider === undefined ? {} : { provider: info.provider }),
      ...(info.status === undefined ? {} : { upstreamStatus: info.status }),
    });
    this.name = 'ModelError';
    this.reason = reason;
    this.provider = info.provider;
    this.upstreamStatus = info.status;
    this.retryable = info.retryable ?? reason === 'PROVIDER_UNAVAILABLE';
  }
}

export function isModelError(error: unknown, reason?: ModelErrorReason): error is ModelError {
  return error instanceof ModelError && (reason === undefined || error.reason === reason);
}
