// Owns where master keys come from: SWITCHYARD_MASTER_KEYS, SWITCHYARD_MASTER_KEY_FILE, or a generated 0600 file beside the database.
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { createKeyRing, generateMasterKeyEntry, parseKeyRing, MASTER_KEY_BYTES, type KeyRing } from './key-ring.js';
import { VaultError } from './vault-error.js';

export const MASTER_KEYS_ENV = 'SWITCHYARD_MASTER_KEYS';
export const MASTER_KEY_FILE_ENV = 'SWITCHYARD_MASTER_KEY_FILE';

/**
 * What to do when neither variable is set. `file`: read the key file at `path`, creating it (random key,
 * mode 0600) on first start, so a fresh machine runs with no setup and restarts can still open grants.
 * `ephemeral`: a random in-memory key, for in-memory databases whose grants die with the process anyway.
 */
export type MasterKeyFallback = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'ephemeral' };

export type KeyRingSource = 'env' | 'env-file' | 'default-file' | 'generated-file' | 'ephemeral';

export interface LoadedKeyRing {
  readonly ring: KeyRing;
  readonly source: KeyRingSource;
  /** The key file read or created; null for `env` and `ephemeral`. Safe to log (a path, not a key). */
  readonly path: string | null;
  /** Operator-facing notes (e.g. loose file permissions); never contain key material. */
  readonly warnings: readonly string[];
}

export interface LoadKeyRingOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fallback: MasterKeyFallback;
}

/** The default key file for a database file: `<db>.master-keys` beside it; null for in-memory databases. */
export function defaultMasterKeyFileFor(databaseFile: string): string | null {
  if (databaseFile === '' || databaseFile === ':memory:' || databaseFile.startsWith('file::memory:')) return null;
  return `${databaseFile}.master-keys`;
}

function setting(env: LoadKeyRingOptions['env'], name: string): string | undefined {
  const value = env[name];
  // An empty variable (common in compose files) counts as unset rather than as an empty key list.
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Resolution order: `SWITCHYARD_MASTER_KEYS` (`id:base64,id:base64`), else `SWITCHYARD_MASTER_KEY_FILE`
 * (one `id:base64` per line), else the fallback; setting both is refused as ambiguous. Generate a key
 * with `openssl rand -base64 32`. Rotation: put the new key first and keep the old ones after it until
 * every grant sealed under them has settled or been rewrapped (GrantEnvelope.rewrapGrant); then drop them.
 */
export function loadKeyRing(options: LoadKeyRingOptions): LoadedKeyRing {
  const listed = setting(options.env, MASTER_KEYS_ENV);
  const file = setting(options.env, MASTER_KEY_FILE_ENV);
  if (listed !== undefined && file !== undefined) {
    throw new VaultError('KEY_RING_INVALID', `set only one of ${MASTER_KEYS_ENV} and ${MASTER_KEY_FILE_ENV}`);
  }
  if (listed !== undefined) {
    return { ring: parseKeyRing(listed, { separator: 'comma', source: MASTER_KEYS_ENV }), source: 'env', path: null, warnings: [] };
  }
  if (file !== undefined) return { ...readKeyFile(file, MASTER_KEY_FILE_ENV), source: 'env-file' };
  if (options.fallback.kind === 'ephemeral') {
    return { ring: createKeyRing([{ keyId: 'ephemeral', key: randomBytes(MASTER_KEY_BYTES) }]), source: 'ephemeral', path: null, warnings: [] };
  }
  const path = options.fallback.path;
  const created = createKeyFileIfAbsent(path);
  return { ...readKeyFile(path, 'master key file'), source: created ? 'generated-file' : 'default-file' };
}

function readKeyFile(path: string, label: string): { ring: KeyRing; path: string; warnings: string[] } {
  let text: string;
  let mode: number;
  try {
    text = readFileSync(path, 'utf8');
    mode = statSync(path).mode;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new VaultError('KEY_RING_INVALID', `${label}: cannot read ${path} (${code})`);
  }
  const warnings: string[] = [];
  // Windows has no POSIX mode bits to check.
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    warnings.push(`master key file ${path} is accessible to group or others; restrict it with chmod 600`);
  }
  return { ring: parseKeyRing(text, { separator: 'line', source: `${label} ${path}` }), path, warnings };
}

const FILE_HEADER = [
  '# Switchyard master keys, one "keyId:base64key" per line (32-byte keys). Generated on first start.',
  '# The first line wraps new caller-credential grants; later lines only open older grants (rotation).',
  '# Losing this file makes stored grants unopenable. Keep it 0600 and back it up with the database.',
].join('\n');

/**
 * Writes a fresh key to a private temp file, fsyncs it, then hard-links it into place: the link is atomic
 * and never replaces an existing file, so a crash leaves no half-written key file and two processes
 * starting together agree on one key. Returns whether this call created the file.
 */
function createKeyFileIfAbsent(path: string): boolean {
  if (fileExists(path)) return false;
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  let tempWritten = false;
  let linking = false;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSync(temp, 'wx', 0o600);
    tempWritten = true;
    try {
      writeSync(fd, `${FILE_HEADER}\n${generateMasterKeyEntry(`auto-${randomBytes(4).toString('hex')}`)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linking = true;
    linkSync(temp, path);
  } catch (error) {
    // Another process created the file first: use theirs.
    if (linking && (error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw fileError('cannot create', path, error);
  } finally {
    if (tempWritten) unlinkSync(temp);
  }
  syncDirectory(dirname(path));
  return true;
}

function fileError(action: string, path: string, error: unknown): VaultError {
  return new VaultError('KEY_RING_INVALID', `master key file: ${action} ${path} (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
}

function fileExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw fileError('cannot read', path, error);
  }
}

function syncDirectory(directory: string): void {
  // Makes the new directory entry durable; some platforms cannot fsync a directory, which is not fatal.
  try {
    const fd = openSync(directory, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return;
  }
}
