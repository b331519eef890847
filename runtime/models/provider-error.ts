// Owns the mapping from AI SDK / network failures to ModelError, with secrets scrubbed from upstream messages.
import { APICallError, RetryError } from 'ai';
import { ModelError } from './model-error.js';

const MAX_MESSAGE = 500;
/** Key-shaped tokens, including OpenAI's half-masked echo of a bad key ("sk-abc***wxyz"). */
const KEY_LIKE = /\b(?:sk|pk|key)-[A-Za-z0-9_*-]{6,}/g;

export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  out = out.replace(KEY_LIKE, '[redacted]');
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE - 1)}…` : out;
}

const TRANSIENT_STREAM_ERROR = /overloaded|rate_limit|api_error|server_error|timeout/i;

function streamErrorKind(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as { type?: unknown; code?: unknown; error?: unknown };
  const inner = typeof record.error === 'object' && record.error !== null ? (record.error as { type?: unknown; code?: unknown }) : record;
  const kind = [inner.type, inner.code].filter((part) => typeof part === 'string').join(' ');
  return kind || undefined;
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'object' && value !== null) {
    const record = value as { message?: unknown; error?: { message?: unknown } };
    const message = typeof record.message === 'string' ? record.message : record.error?.message;
    const kind = streamErrorKind(value);
    if (typeof message === 'string') return kind ? `${kind}: ${message}` : message;
    return JSON.stringify(value) ?? String(value);
  }
  return String(value);
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** `secrets` are this provider's configured keys: upstream error bodies sometimes echo them. */
export function toModelError(error: unknown, provider: string, secrets: readonly (string | undefined)[], signal?: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  if (signal?.aborted || isAbort(error)) {
    return new ModelError('ABORTED', `The ${provider} model step was aborted.`, { provider });
  }
  // With maxRetries > 0 the SDK wraps the last attempt's failure; classify that one.
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  const detail = scrubSecrets(describe(cause), secrets);

  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    if (status === undefined) {
      return new ModelError('PROVIDER_UNAVAILABLE', `Could not reach ${provider}: ${detail}`, { provider, retryable: true });
    }
    const transient = status === 408 || status === 409 || status === 429 || status >= 500;
    return new ModelError(
      transient ? 'PROVIDER_UNAVAILABLE' : 'PROVIDER_REJECTED',
      `${provider} answered HTTP ${status}: ${detail}`,
      { provider, status, retryable: transient },
    );
  }
  // An error event inside a 200 stream (Anthropic `event: error`, OpenAI `type: "error"`) arrives as its payload.
  const kind = streamErrorKind(cause);
  if (kind !== undefined && TRANSIENT_STREAM_ERROR.test(kind)) {
    return new ModelError('PROVIDER_UNAVAILABLE', `${provider} failed mid-stream: ${detail}`, { provider, retryable: true });
  }
  return new ModelError('PROVIDER_RESPONSE_INVALID', `${provider} returned an unusable response: ${detail}`, { provider });
}
