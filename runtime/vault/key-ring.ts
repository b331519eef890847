// Owns the master keys of envelope encryption: parsing `keyId:base64key` lists, and wrapping data keys (AES-256-GCM).
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { VaultError } from './vault-error.js';

export const MASTER_KEY_BYTES = 32;
/** Letters, digits, `.`, `_`, `-`; starts with a letter or digit; at most 64 characters. No `:` or `,` (separators). */
export const KEY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const DATA_KEY_BYTES = 32;
/** Layout of a wrapped data key: iv (12) | tag (16) | encrypted data key (32). */
export const WRAPPED_KEY_BYTES = IV_BYTES + TAG_BYTES + DATA_KEY_BYTES;

const KEY_ID_RULE = 'key id must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit';
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;

export interface WrappedDataKey {
  readonly keyId: string;
  readonly wrappedKey: Buffer;
}

export interface KeyRing {
  /** The key that wraps every new data key; the others only unwrap (rotation). */
  readonly activeKeyId: string;
  readonly keyIds: readonly string[];
  hasKey(keyId: string): boolean;
  /** Wraps a 32-byte data key under the active master key; `aad` binds it to its grant. */
  wrap(dataKey: Buffer, aad: Buffer): WrappedDataKey;
  /** Returns the data key; the caller owns the buffer and must zero it after use. */
  unwrap(wrapped: WrappedDataKey, aad: Buffer): Buffer;
  /** Rotation: unwraps with the key that wrapped it and wraps again with the active key. */
  rewrap(wrapped: WrappedDataKey, aad: Buffer): WrappedDataKey;
}

export interface MasterKeyEntry {
  readonly keyId: string;
  readonly key: Uint8Array;
}

function invalid(message: string): VaultError {
  return new VaultError('KEY_RING_INVALID', message);
}

/**
 * Builds a ring from entries; the first is active. Key bytes are copied into KeyObjects (which never print
 * their material) and the given buffers are zeroed. Errors name entry positions only: a misplaced separator
 * could put key material where the id belongs, so not even ids are echoed.
 */
export function createKeyRing(entries: readonly MasterKeyEntry[], source = 'master key list'): KeyRing {
  try {
    if (entries.length === 0) throw invalid(`${source}: no master keys given`);
    const keys = new Map<string, KeyObject>();
    entries.forEach((entry, index) => {
      const where = `${source} entry ${index + 1}`;
      if (!KEY_ID_PATTERN.test(entry.keyId)) throw invalid(`${where}: ${KEY_ID_RULE}`);
      if (entry.key.length !== MASTER_KEY_BYTES) {
        throw invalid(`${where}: key must be exactly ${MASTER_KEY_BYTES} bytes (got ${entry.key.length})`);
      }
      if (keys.has(entry.keyId)) throw invalid(`${where}: key id repeats an earlier entry`);
      keys.set(entry.keyId, createSecretKey(entry.key));
    });
    return ringFrom(keys, entries[0].keyId);
  } finally {
    for (const entry of entries) entry.key.fill(0);
  }
}

/**
 * Parses `keyId:base64key` entries, comma-separated (`SWITCHYARD_MASTER_KEYS`) or one per line (key file;
 * blank lines and `#` comments allowed). Standard or URL-safe base64, padding optional.
 */
export function parseKeyRing(text: string, options: { separator: 'comma' | 'line'; source: string }): KeyRing {
  const { source } = options;
  const raw = options.separator === 'comma' ? text.split(',') : text.split(/\r?\n/);
  const entries: MasterKeyEntry[] = [];
  raw.forEach((item, index) => {
    const line = item.trim();
    // Empty items are skipped so a trailing comma or blank line is harmless.
    if (line === '' || (options.separator === 'line' && line.startsWith('#'))) return;
    const where = options.separator === 'line' ? `${source} line ${index + 1}` : `${source} entry ${index + 1}`;
    const colon = line.indexOf(':');
    if (colon <= 0 || colon === line.length - 1) throw invalid(`${where}: expected "keyId:base64key"`);
    const keyId = line.slice(0, colon).trim();
    const encoded = line.slice(colon + 1).trim();
    if (!KEY_ID_PATTERN.test(keyId)) throw invalid(`${where}: ${KEY_ID_RULE}`);
    if (!BASE64_PATTERN.test(encoded)) throw invalid(`${where}: key is not valid base64`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== MASTER_KEY_BYTES) {
      key.fill(0);
      throw invalid(`${where}: key must decode to exactly ${MASTER_KEY_BYTES} bytes (got ${key.length})`);
    }
    entries.push({ keyId, key });
  });
  try {
    return createKeyRing(entries, source);
  } finally {
    for (const entry of entries) entry.key.fill(0);
  }
}

/** A fresh `keyId:base64key` line, for generated key files and for operators rotating keys. */
export function generateMasterKeyEntry(keyId: string): string {
  if (!KEY_ID_PATTERN.test(keyId)) throw invalid('generated key id is not a valid key id');
  const key = randomBytes(MASTER_KEY_BYTES);
  try {
    return `${keyId}:${key.toString('base64')}`;
  } finally {
    key.fill(0);
  }
}

function ringFrom(keys: ReadonlyMap<string, KeyObject>, activeKeyId: string): KeyRing {
  const keyIds = Object.freeze([...keys.keys()]);

  function wrap(dataKey: Buffer, aad: Buffer): WrappedDataKey {
    if (dataKey.length !== DATA_KEY_BYTES) throw new VaultError('GRANT_MALFORMED', `data key must be ${DATA_KEY_BYTES} bytes`);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keys.get(activeKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    const encrypted = Buffer.concat([cipher.update(dataKey), cipher.final()]);
    return { keyId: activeKeyId, wrappedKey: Buffer.concat([iv, cipher.getAuthTag(), encrypted]) };
  }

  function unwrap(wrapped: WrappedDataKey, aad: Buffer): Buffer {
    const key = keys.get(wrapped.keyId);
    if (key === undefined) {
      throw new VaultError('MASTER_KEY_UNAVAILABLE', 'the master key that sealed this grant is not in the key ring');
    }
    if (wrapped.wrappedKey.length !== WRAPPED_KEY_BYTES) {
      throw new VaultError('GRANT_MALFORMED', `wrapped data key must be ${WRAPPED_KEY_BYTES} bytes`);
    }
    const iv = wrapped.wrappedKey.subarray(0, IV_BYTES);
    const tag = wrapped.wrappedKey.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const encrypted = wrapped.wrappedKey.subarray(IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    const first = decipher.update(encrypted);
    try {
      const last = decipher.final();
      return last.length === 0 ? first : Buffer.concat([first, last]);
    } catch {
      first.fill(0);
      throw new VaultError('GRANT_UNOPENABLE', 'grant data key failed authentication (altered, or bound to another grant)');
    }
  }

  function rewrap(wrapped: WrappedDataKey, aad: Buffer): WrappedDataKey {
    const dataKey = unwrap(wrapped, aad);
    try {
      return wrap(dataKey, aad);
    } finally {
      dataKey.fill(0);
    }
  }

  return Object.freeze({
    activeKeyId,
    keyIds,
    hasKey: (keyId: string) => keys.has(keyId),
    wrap,
    unwrap,
    rewrap,
  });
}
