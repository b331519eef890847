// Remembers the SHA-256 of well-formed secrets seen lately: a key sent on every request is checksummed and hashed once.
import { hashSecret, isWellFormed, type SecretKind } from './secrets.js';

/** Secrets remembered before the memo starts over (a bound on memory: well-formed secrets are cheap to mint). */
const MAX_ENTRIES = 10_000;

/**
 * `(secret, kind)` -> the secret's hash when it is a well-formed secret of that kind, else null. What the hash names
 * (revoked, expired, another user's) is still decided by the lookup on every request: only the format check and
 * the hash are remembered. The secrets themselves stay in this process's memory as they do while a request is
 * handled; they are never written anywhere (docs/decisions.md "Request pipeline: where the time went").
 */
export function createSecretHashes(): (secret: string, kind: SecretKind) => Buffer | null {
  const known = new Map<string, Buffer>();
  return (secret, kind) => {
    const hash = known.get(secret);
    // Prefixes are distinct and none starts another ('sv_' vs 'svu_'), so the prefix names the kind it was checked as.
    if (hash !== undefined) return secret.startsWith(kind) ? hash : null;
    if (!isWellFormed(secret, kind)) return null;
    const fresh = hashSecret(secret);
    if (known.size >= MAX_ENTRIES) known.clear();
    known.set(secret, fresh);
    return fresh;
  };
}
