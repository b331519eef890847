// Secret formats for every credential kind: prefix + random body + checksum; stored only as SHA-256.
import { createHash, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';

export type SecretKind = 'sv_' | 'svu_' | 'svp_' | 'svt_' | 'svs_' | 'svi_';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;
const randomBody = customAlphabet(ALPHABET, BODY_LENGTH);
const FORMAT = new RegExp(`^(sv_|svu_|svp_|svt_|svs_|svi_)([0-9A-Za-z]{${BODY_LENGTH}})([0-9A-Za-z]{${CHECK_LENGTH}})$`);

function checksum(prefix: string, body: string): string {
  const digest = createHash('sha256').update(prefix).update(body).digest();
  let out = '';
  for (let i = 0; i < CHECK_LENGTH; i++) out += ALPHABET[digest[i] % ALPHABET.length];
  return out;
}

/** A fresh secret: 32 random base62 chars (~190 bits) and a 6-char checksum. */
export function mintSecret(kind: SecretKind): string {
  const body = randomBody();
  return `${kind}${body}${checksum(kind, body)}`;
}

/** True only for a well-formed secret of that kind with a valid checksum: no lookup for garbage. */
export function isWellFormed(secret: string, kind: SecretKind): boolean {
  const match = FORMAT.exec(secret);
  if (!match || match[1] !== kind) return false;
  const expected = checksum(match[1], match[2]);
  return timingSafeEqual(Buffer.from(expected), Buffer.from(match[3]));
}

export function kindOf(secret: string): SecretKind | null {
  const match = FORMAT.exec(secret);
  return match ? (match[1] as SecretKind) : null;
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Constant-time comparison of two stored hashes. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What may be shown of a secret (logs never get even this): prefix and last 4 chars. */
export function hintOf(secret: string): string {
  return `${secret.slice(0, secret.indexOf('_') + 1)}…${secret.slice(-4)}`;
}
