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
  const detail = scrubSecrets(cause instanceof Error ? cause.message : String(cause), secrets);

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
  return new ModelError('PROVIDER_RESPONSE_INVALID', `${provider} returned an unusable response: ${detail}`, { provider });
}
