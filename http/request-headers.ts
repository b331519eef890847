// HTTP request headers with rules beyond their shape: the Idempotency-Key (fire, provisioning) and a required JSON Content-Type.
import { AppError, validation } from '../runtime/errors.js';
import { IDEMPOTENCY_KEY_PATTERN, KEY_RULE } from '../runtime/triggers/fire-request.js';

export interface KeyHeaders {
  headers: Record<string, string>;
  headerCounts: Record<string, number>;
}

/**
 * Rule 6: the header wins over the body's `idempotencyKey`. A repeated header, or one value carrying a list
 * (comma-separated), is refused: we could not tell which key the client meant.
 */
export function idempotencyKeyOf(request: KeyHeaders, bodyKey: string | undefined): string | null {
  const count = request.headerCounts['idempotency-key'] ?? 0;
  if (count > 1) throw validation('Send the Idempotency-Key header once.', { issues: [{ path: 'Idempotency-Key', message: 'repeated header' }] });
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return bodyKey ?? null;
  const value = raw.trim();
  if (value.includes(',')) {
    throw validation('Idempotency-Key must carry one key.', { issues: [{ path: 'Idempotency-Key', message: 'comma-separated values are not allowed' }] });
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw validation('Idempotency-Key is not valid.', { issues: [{ path: 'Idempotency-Key', message: KEY_RULE }] });
  }
  return value;
}

/** Provisioning rule 1: the key is required there (unlike fire), one header, one value, 1-128 of the allowed characters. */
export function requiredIdempotencyKeyOf(request: KeyHeaders): string {
  const key = idempotencyKeyOf(request, undefined);
  if (key === null) throw validation('The Idempotency-Key header is required.', { issues: [{ path: 'Idempotency-Key', message: 'required' }] });
  return key;
}

/** `Content-Type: application/json` is required (415 otherwise); a charset parameter is fine. */
export function assertJsonContentType(contentType: string | undefined): void {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  if (essence !== 'application/json') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json.');
  }
}
