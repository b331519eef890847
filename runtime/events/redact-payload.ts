// Defence in depth for "secrets never reach SSE or the database": scrubs credential material from event payloads.

export const REDACTED = '[redacted]';

/**
 * The service's own credential formats (runtime/auth/secrets.ts: prefix + 32 body + 6 checksum chars). Caller
 * credentials have no recognisable format, which is why no event type has a field that carries them at all.
 */
const SERVICE_SECRET = /\b(?:sv|svu|svp|svt|svs|svi)_[0-9A-Za-z]{38}\b/g;

/** Keys whose values are credentials wherever they appear (mirrors the logger's redact paths). */
const CREDENTIAL_KEYS = new Set([
  'authorization',
  'cookie',
  'token',
  'accesstoken',
  'refreshtoken',
  'apikey',
  'password',
  'secret',
  'clientsecret',
  'callercredentials',
]);

/** A deep copy with credential-named keys and service-secret-shaped strings replaced by `[redacted]`. */
export function redactCredentialMaterial<T>(value: T): T {
  return scrub(value) as T;
}

function scrub(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('_') ? value.replace(SERVICE_SECRET, REDACTED) : value;
  if (Array.isArray(value)) return value.map(scrub);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = CREDENTIAL_KEYS.has(key.toLowerCase()) && inner !== null && inner !== undefined ? REDACTED : scrub(inner);
  }
  return out;
}
