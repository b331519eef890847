// The fire fingerprint: keyed (HMAC under a sealed service key), stable across master-key rotation, equal for equal requests.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { createFireFingerprinter } from '../../../runtime/triggers/fire-fingerprint.js';
import { createKeyRing, normalizeCallerCredentials } from '../../../runtime/vault/index.js';
import { openTestStore } from '../../helpers/test-store.js';

const k1 = randomBytes(32);
const k2 = randomBytes(32);
const ring = (...keys: Array<[string, Buffer]>) => createKeyRing(keys.map(([keyId, key]) => ({ keyId, key: Buffer.from(key) })));
const request = (token: string, input: Record<string, unknown> = { a: 1, b: [1, 2] }) => ({
  triggerId: '01a20378-2ef2-706e-a4ab-ac80f2c8f9ad',
  input,
  callerCredentials: normalizeCallerCredentials({ integrations: { crm: { token, fallbackAllowed: true } } }),
});

t.test('equal requests fingerprint alike; any changed byte, input or target differs; no material in the stored key row', async (t) => {
  const { store } = await openTestStore(t);
  const logs: string[] = [];
  const logger = pino(new Writable({ write: (c, _e, done) => (logs.push(String(c)), done()) }));
  const fingerprint = createFireFingerprinter({ store, keyRing: ring(['k1', k1]), clock: new ManualClock(), logger });
  const base = await fingerprint(request('tok-AAAA'));
  t.match(base, /^[0-9a-f]{64}$/);
  t.equal(await fingerprint(request('tok-AAAA', { b: [1, 2], a: 1 })), base, 'key order does not matter');
  t.not(await fingerprint(request('tok-AAAB')), base, 'one changed byte of a credential');
  t.not(await fingerprint(request('tok-AAAA', { a: 1, b: [2, 1] })), base, 'array order does');
  t.not(await fingerprint({ ...request('tok-AAAA'), triggerId: '01a20378-2ef2-706e-a4ab-ac80f2c8f9ae' }), base);
  t.equal(await fingerprint({ ...request('x'), callerCredentials: null }), await fingerprint({ ...request('x'), callerCredentials: { integrations: {} } }), 'omitted equals {}');
  const row = (await store.repos.serviceKeys.get('fire-fingerprint'))!;
  t.ok(row.sealed.length > 60, 'the HMAC key is stored sealed');
  t.equal(logs.length, 0);
});

t.test('a master-key rotation rewraps the fingerprint key: fingerprints taken before still match', async (t) => {
  const { store } = await openTestStore(t);
  const logs: string[] = [];
  const logger = pino(new Writable({ write: (c, _e, done) => (logs.push(String(c)), done()) }));
  const clock = new ManualClock();
  const before = await createFireFingerprinter({ store, keyRing: ring(['k1', k1]), clock, logger })(request('tok'));
  const sealedUnderK1 = (await store.repos.serviceKeys.get('fire-fingerprint'))!.sealed;
  const rotated = await createFireFingerprinter({ store, keyRing: ring(['k2', k2], ['k1', k1]), clock, logger })(request('tok'));
  t.equal(rotated, before, 'same key under the new active master key');
  t.not((await store.repos.serviceKeys.get('fire-fingerprint'))!.sealed.equals(sealedUnderK1), 'rewrapped');
  const k1Retired = await createFireFingerprinter({ store, keyRing: ring(['k2', k2]), clock, logger })(request('tok'));
  t.equal(k1Retired, before, 'k1 is no longer needed');
  const lost = await createFireFingerprinter({ store, keyRing: ring(['k3', randomBytes(32)]), clock, logger })(request('tok'));
  t.not(lost, before, 'without the master key the old fingerprint key is gone: a new one is minted');
  t.match(logs.join(''), /fingerprint key could not be opened/);
});
