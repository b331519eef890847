// Owns the Standard Webhooks wire format: signing secrets, signed headers for outbound deliveries, inbound verification.
/*
 * Signing and the HMAC itself come from the `standardwebhooks` package. Its `verify` reads Date.now() for the
 * timestamp tolerance, so inbound verification checks the window against the injected clock here and then
 * compares the package's signature for that timestamp with each `v1,` signature sent (constant time).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';
/** The spec's recommended secret sizes: 24 to 64 random bytes, base64 after the prefix. */
const SECRET_BYTES = { min: 24, max: 64, minted: 32 } as const;
/** Standard Webhooks' default tolerance for webhook-timestamp, either side of now. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60_000;

export function mintSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES.minted).toString('base64')}`;
}

/** True for `whsec_` + canonical base64 of 24–64 bytes (what `new Webhook(secret)` can key on). */
export function isSigningSecret(secret: string): boolean {
  if (!secret.startsWith(SECRET_PREFIX)) return false;
  const body = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) return false;
  const bytes = Buffer.from(body, 'base64').length;
  return bytes >= SECRET_BYTES.min && bytes <= SECRET_BYTES.max;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Headers for one outbound attempt: the id stays the same across retries, the timestamp is the attempt's. */
export function signedHeaders(secret: string, messageId: string, nowMs: number, body: string): SignedHeaders {
  const at = new Date(Math.floor(nowMs / 1000) * 1000);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(at.getTime() / 1000),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}

export type VerifyFailure = 'missing-headers' | 'bad-timestamp' | 'stale-timestamp' | 'no-matching-signature' | 'unusable-secret';

export type VerifyResult = { ok: true; messageId: string; timestampMs: number } | { ok: false; reason: VerifyFailure };

/** Verifies an inbound delivery's headers against the raw body with `secret`, the tolerance measured on `nowMs`. */
export function verifySignature(secret: string, headers: Readonly<Record<string, string | undefined>>, body: Buffer, nowMs: number): VerifyResult {
  const messageId = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!messageId || !timestamp || !signatures) return { ok: false, reason: 'missing-headers' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'bad-timestamp' };
  const timestampMs = Number(timestamp) * 1000;
  if (Math.abs(nowMs - timestampMs) > TIMESTAMP_TOLERANCE_MS) return { ok: false, reason: 'stale-timestamp' };
  let expected: Buffer;
  try {
    expected = Buffer.from(new Webhook(secret).sign(messageId, new Date(timestampMs), body.toString('utf8')).slice(3), 'utf8');
  } catch {
    return { ok: false, reason: 'unusable-secret' };
  }
  for (const versioned of signatures.split(' ')) {
    const comma = versioned.indexOf(',');
    if (comma < 0 || versioned.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(versioned.slice(comma + 1), 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, messageId, timestampMs };
  }
  return { ok: false, reason: 'no-matching-signature' };
}
