// Owns sealing small JSON secrets at rest (connection material, trigger endpoint secrets) under the master key ring.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { WRAPPED_KEY_BYTES, type KeyRing } from './key-ring.js';
import { VaultError } from './vault-error.js';

/**
 * Layout (one BLOB): version (1) | keyId length (1) | keyId | wrapped data key (60) | iv (12) | tag (16) | ciphertext.
 * Each secret has its own data key, wrapped by the active master key, so rotation rewraps 60 bytes, not the payload.
 */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const DATA_KEY_BYTES = 32;

// The caller's AAD (e.g. `connection:<orgId>:<connectionId>`) binds the secret to its row: a sealed blob
// copied to another row does not open. Each layer gets its own AAD (domain separation).
function aadFor(layer: 'payload' | 'data-key', aad: string): Buffer {
  if (aad.length === 0) throw new VaultError('GRANT_MALFORMED', 'sealed secret AAD must not be empty');
  return Buffer.from(JSON.stringify(['switchyard.sealed-secret', VERSION, layer, aad]), 'utf8');
}

/** The AAD of each kind of sealed secret: the record it belongs to (its organization and id). */
export const sealedSecretAad = Object.freeze({
  connection: (orgId: string, connectionId: string): string => `connection:${orgId}:${connectionId}`,
  triggerEndpoint: (orgId: string, triggerId: string): string => `trigger-endpoint:${orgId}:${triggerId}`,
  webhookEndpoint: (orgId: string, endpointId: string): string => `webhook-endpoint:${orgId}:${endpointId}`,
});

/** Encrypts `value` (any JSON value) with AES-256-GCM; only `openSecret` with the same AAD recovers it. */
export function sealSecret(keyRing: KeyRing, value: unknown, aad: string): Buffer {
  const plaintext = Buffer.from(JSON.stringify(value), 'utf8');
  const dataKey = randomBytes(DATA_KEY_BYTES);
  try {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', dataKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aadFor('payload', aad));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const wrapped = keyRing.wrap(dataKey, aadFor('data-key', aad));
    const keyId = Buffer.from(wrapped.keyId, 'utf8');
    return Buffer.concat([Buffer.from([VERSION, keyId.length]), keyId, wrapped.wrappedKey, iv, cipher.getAuthTag(), ciphertext]);
  } finally {
    dataKey.fill(0);
    plaintext.fill(0);
  }
}

interface SealedParts {
  keyId: string;
  wrappedKey: Buffer;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

function split(sealed: Uint8Array): SealedParts {
  const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (buf.length < 2 || buf[0] !== VERSION) throw new VaultError('GRANT_MALFORMED', 'unknown sealed secret version');
  const idEnd = 2 + buf[1]!;
  const wrapEnd = idEnd + WRAPPED_KEY_BYTES;
  const ivEnd = wrapEnd + IV_BYTES;
  const tagEnd = ivEnd + TAG_BYTES;
  if (buf.length < tagEnd) throw new VaultError('GRANT_MALFORMED', 'sealed secret is truncated');
  return {
    keyId: buf.subarray(2, idEnd).toString('utf8'),
    wrappedKey: buf.subarray(idEnd, wrapEnd),
    iv: buf.subarray(wrapEnd, ivEnd),
    tag: buf.subarray(ivEnd, tagEnd),
    ciphertext: buf.subarray(tagEnd),
  };
}

/** Decrypts a sealed secret; throws VaultError GRANT_UNOPENABLE (altered or other AAD), MASTER_KEY_UNAVAILABLE or GRANT_MALFORMED. */
export function openSecret(keyRing: KeyRing, sealed: Uint8Array, aad: string): unknown {
  const parts = split(sealed);
  const dataKey = keyRing.unwrap({ keyId: parts.keyId, wrappedKey: parts.wrappedKey }, aadFor('data-key', aad));
  let plaintext: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', dataKey, parts.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aadFor('payload', aad));
    decipher.setAuthTag(parts.tag);
    const body = decipher.update(parts.ciphertext);
    try {
      plaintext = Buffer.concat([body, decipher.final()]);
    } catch {
      throw new VaultError('GRANT_UNOPENABLE', 'sealed secret failed authentication (altered, or bound to another record)');
    } finally {
      body.fill(0);
    }
  } finally {
    dataKey.fill(0);
  }
  try {
    return JSON.parse(plaintext.toString('utf8'));
  } catch {
    throw new VaultError('GRANT_MALFORMED', 'sealed secret payload is not valid JSON');
  } finally {
    plaintext.fill(0);
  }
}

/** Rotation: the same secret with its data key rewrapped under the active master key (unchanged if already there). */
export function rewrapSecret(keyRing: KeyRing, sealed: Uint8Array, aad: string): Buffer {
  const parts = split(sealed);
  if (parts.keyId === keyRing.activeKeyId) return Buffer.from(sealed);
  const wrapped = keyRing.rewrap({ keyId: parts.keyId, wrappedKey: parts.wrappedKey }, aadFor('data-key', aad));
  const keyId = Buffer.from(wrapped.keyId, 'utf8');
  return Buffer.concat([Buffer.from([VERSION, keyId.length]), keyId, wrapped.wrappedKey, parts.iv, parts.tag, parts.ciphertext]);
}
