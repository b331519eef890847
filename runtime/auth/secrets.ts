// Secret formats for every credential kind: prefix + random body + checksum; stored only as SHA-256.
import { hash, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';

export type SecretKind = 'sv_' | 'svu_' | 'svp_' | 'svt_' | 'svs_' | 'svi_';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;
const randomBody = customAlphabet(ALPHABET, BODY_LENGTH);
const FORMAT = new RegExp(`^(sv_|svu_|svp_|svt_|svs_|svi_)([0-9A-Za-z]{${BODY_LENGTH}})([0-9A-Za-z]{${CHECK_LENGTH}})$`);

/**
 * SHA-256 of a short text. Every authenticated request checks a checksum and hashes its secret: the one-shot `hash`
 * skips the Hash object, and on Node 20 its base64 text turned into bytes is faster than its own 'buffer' output
 * (~1.1 µs against ~1.9 µs, and ~2.6 µs for createHash, here).
 */
function sha256(text: string): Buffer {
  return Buffer.from(hash('sha256', text, 'base64'), 'base64');
}

function checksum(prefix: string, body: string): string {
  const digest = sha256(prefix + body);
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
  return sha256(secret);
}

/** Constant-time comparison of two stored hashes. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What may be shown of a secret (logs never get even this): prefix and last 4 chars. */
export function hintOf(secret: string): string {
  return `${secret.slice(0, secret.indexOf('_') + 1)}…${secret.slice(-4)}`;
}
