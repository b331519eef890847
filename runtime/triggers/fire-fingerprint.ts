// The keyed fingerprint of a fire request (target, input, callerCredentials with values): what a claim stores instead of the request.
/*
 * SPEC Errors: request equality under a key covers target, input and callerCredentials, credential values
 * included. The claim must not hold the credentials, and a plain hash of a short token could be brute-forced
 * from the database file, so the fingerprint is an HMAC under a service key. That key is random, minted once,
 * and stored sealed under the master key ring (table sealed_service_keys): the file alone never yields it, and a
 * master-key rotation only rewraps it, so fingerprints of claims taken before the rotation still match.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import { isVaultError, type KeyRing, type NormalizedCallerCredentials } from '../vault/index.js';
import { openSecret, rewrapSecret, sealSecret } from '../vault/sealed-secret.js';

const KEY_NAME = 'fire-fingerprint';
const KEY_AAD = `service-key:${KEY_NAME}`;
const FINGERPRINT_VERSION = 'switchyard.fire-fingerprint.v1';

export interface FireFingerprintInput {
  readonly triggerId: string;
  readonly input: Record<string, unknown>;
  /** Normalized (`{}` entries dropped, keys sorted): omission and `{}` fingerprint alike (SPEC Caller credentials rule 4). */
  readonly callerCredentials: NormalizedCallerCredentials | null;
}

export type FireFingerprinter = (request: FireFingerprintInput) => Promise<string>;

export function createFireFingerprinter(deps: { store: Storage; keyRing: KeyRing; clock: Clock; logger: Logger }): FireFingerprinter {
  // Loaded (or minted) once, in a unit of its own; every fingerprint waits for it, then only hashes.
  const loading = loadOrMintKey(deps);
  loading.catch(() => undefined);
  let key: Buffer | null = null;
  return async (request) => {
    key ??= await loading;
    return createHmac('sha256', key)
      // Object keys sorted at every depth: a reordered but equal JSON body is the same request.
      .update(canonicalJson([FINGERPRINT_VERSION, request.triggerId, request.input, request.callerCredentials?.integrations ?? {}]))
      .digest('hex');
  };
}

function loadOrMintKey(deps: { store: Pick<Storage, 'writer'>; keyRing: KeyRing; clock: Clock; logger: Logger }): Promise<Buffer> {
  const { store, keyRing, clock } = deps;
  return store.writer.submit(async (tx) => {
    const repo = tx.repos.serviceKeys;
    const now = clock.now();
    const row = await repo.get(KEY_NAME);
    if (row !== undefined) {
      try {
        const key = Buffer.from(openSecret(keyRing, row.sealed, KEY_AAD) as string, 'base64');
        const rewrapped = rewrapSecret(keyRing, row.sealed, KEY_AAD);
        if (!rewrapped.equals(row.sealed)) await repo.replace(KEY_NAME, rewrapped, now);
        return key;
      } catch (error) {
        if (!isVaultError(error)) throw error;
        // The master key that sealed it is gone: keyed retries within 24 h of now will read as different requests.
        deps.logger.warn({ reason: error.reason }, 'fire fingerprint key could not be opened; minting a new one');
      }
    }
    const key = randomBytes(32);
    const sealed = sealSecret(keyRing, key.toString('base64'), KEY_AAD);
    if (row === undefined) await repo.insert({ name: KEY_NAME, sealed, createdAt: now, updatedAt: now });
    else await repo.replace(KEY_NAME, sealed, now);
    return key;
  });
}
