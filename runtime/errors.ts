// The one application error type and the frozen code -> HTTP status catalog (docs/errors.md lists it).
import { isUniqueViolation } from '../storage/port/errors.js';
import { BatchRolledBackError, UnitContendedError, WriterOverloadedError } from '../storage/port/unit-errors.js';

export const ERROR_STATUS = Object.freeze({
  VALIDATION: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SESSION_NOT_DRIVABLE: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  APPROVAL_CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  IDEMPOTENCY_OUTCOME_UNKNOWN: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CALLER_CREDENTIALS_REQUIRED: 422,
  CALLER_CREDENTIAL_EXPIRED: 422,
  RATE_LIMITED: 429,
  /** The execution queue holds more than the configured seconds of work (issue 12); Retry-After says when to come back. */
  OVERLOADED: 429,
  // Closed provisioning refusals (statuses are ours: the spec leaves them open; see docs/errors.md).
  PARTNER_PLATFORM_SUSPENDED: 403,
  PROVISIONING_NOT_ENABLED: 403,
  TEMPLATE_SUSPENDED: 409,
  QUOTA_EXHAUSTED: 409,
  IDENTIFIER_TAKEN: 409,
  CLIENT_SEGMENT_INVALID: 400,
  PROVISIONING_FAILED: 500,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const);

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  /** Set by http/ code only (e.g. `Allow` on a 405); the runtime says "retry later" with `retryAfterSeconds`. */
  readonly headers: Record<string, string>;
  /** How long a refused caller should wait; http/error-reply.ts turns it into `Retry-After` (the runtime names no header). */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options: { status?: number; headers?: Record<string, string>; retryAfterSeconds?: number } = {},
  ) {
    const status = options.status ?? ERROR_STATUS[code];
    // A client's mistake or a refusal (4xx) is answered, not debugged: skipping its stack trace keeps a flood of 429s
    // cheap (the capture was most of a refused request's cost under load). A 5xx keeps its stack for the log.
    const stackTraceLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'AppError';
    this.status = status;
    this.headers = options.headers ?? {};
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  toBody(): { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } } {
    return { error: this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message } };
  }
}

/** The byte-identical answer for a missing/invalid key, an unknown id, and another organization's id. */
export function notFound(): AppError {
  return new AppError('NOT_FOUND', 'Not found.');
}

export function forbidden(message = 'You do not have permission to do this.'): AppError {
  return new AppError('FORBIDDEN', message);
}

export function validation(message: string, details?: Record<string, unknown>): AppError {
  return new AppError('VALIDATION', message, details);
}

/**
 * A storage refusal as the answer the client should see (storage/ imports nothing from runtime/, so its errors are
 * plain ones): a duplicate key is a 409 CONFLICT, the rest a 503 + Retry-After the client can simply retry; null for
 * anything else. A full writer queue wrote nothing; a batch rolled back before COMMIT wrote nothing either. An unknown commit outcome stays INTERNAL: retrying is not safe.
 */
export function storageRefusal(error: unknown): AppError | null {
  if (error instanceof WriterOverloadedError) {
    return new AppError('SERVICE_UNAVAILABLE', 'The service is saturated: its storage writer is full. Retry after the time given.', undefined, {
      retryAfterSeconds: error.retryAfterSeconds,
    });
  }
  if (error instanceof UnitContendedError) {
    return new AppError('SERVICE_UNAVAILABLE', 'The write conflicted with concurrent writes and was rolled back; nothing was written. Retry.', undefined, {
      retryAfterSeconds: 1,
    });
  }
  // A unit's insert broke a unique key: a concurrent request wrote the same thing first (on PostgreSQL units run in
  // parallel transactions; paths that can answer the race better retry or replay first). The unit rolled back whole.
  if (isUniqueViolation(error)) {
    return new AppError('CONFLICT', 'A concurrent request wrote the same thing first; nothing was written. Read the current state before retrying.', {
      reason: 'concurrent_write',
    });
  }
  if (error instanceof BatchRolledBackError) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database connection failed before the write committed; nothing was written. Retry.', undefined, {
      retryAfterSeconds: 1,
    });
  }
  return null;
}
