import t from 'tap';
import { randomBytes } from 'node:crypto';
import { createKeyRing } from '../../../runtime/vault/key-ring.js';
import { openSecret, rewrapSecret, sealSecret } from '../../../runtime/vault/sealed-secret.js';
import { isVaultError } from '../../../runtime/vault/vault-error.js';

const ring = (...ids: string[]) => {
  const keys = ids.map((keyId) => ({ keyId, key: randomBytes(32) }));
  // createKeyRing zeroes what it is given; keep copies to build rotated rings from the same material.
  return { make: (order: string[]) => createKeyRing(order.map((id) => ({ keyId: id, key: Buffer.from(keys.find((k) => k.keyId === id)!.key) }))) };
};

function reason(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    return isVaultError(error) ? error.reason : 'not a VaultError';
  }
  return undefined;
}

t.test('a sealed JSON value opens with the same AAD, and its text is not in the blob', async (t) => {
  const keyRing = ring('k1').make(['k1']);
  const value = { token: 'org-token-123', fields: { api_key: 'field-secret' } };
  const sealed = sealSecret(keyRing, value, 'connection:o:c');
  t.same(openSecret(keyRing, sealed, 'connection:o:c'), value);
  t.notOk(sealed.includes('org-token-123'));
  t.notOk(sealed.includes('field-secret'));
  t.not(sealSecret(keyRing, value, 'connection:o:c').toString('hex'), sealed.toString('hex'), 'fresh key and iv every time');
});

t.test('another AAD, a flipped byte or a truncated blob does not open', async (t) => {
  const keyRing = ring('k1').make(['k1']);
  const sealed = sealSecret(keyRing, 'whsec_x', 'trigger-endpoint:o:t');
  t.equal(reason(() => openSecret(keyRing, sealed, 'trigger-endpoint:o:other')), 'GRANT_UNOPENABLE');
  const flipped = Buffer.from(sealed);
  flipped[flipped.length - 1] ^= 1;
  t.equal(reason(() => openSecret(keyRing, flipped, 'trigger-endpoint:o:t')), 'GRANT_UNOPENABLE');
  t.equal(reason(() => openSecret(keyRing, sealed.subarray(0, 40), 'trigger-endpoint:o:t')), 'GRANT_MALFORMED');
  t.equal(reason(() => sealSecret(keyRing, 'x', '')), 'GRANT_MALFORMED');
});

t.test('rotation: an old key still opens, rewrap moves the secret to the active key', async (t) => {
  const material = ring('old', 'new');
  const before = material.make(['old']);
  const sealed = sealSecret(before, { token: 't' }, 'a');
  const rotated = material.make(['new', 'old']);
  t.same(openSecret(rotated, sealed, 'a'), { token: 't' });
  const moved = rewrapSecret(rotated, sealed, 'a');
  const onlyNew = material.make(['new']);
  t.same(openSecret(onlyNew, moved, 'a'), { token: 't' });
  t.equal(reason(() => openSecret(onlyNew, sealed, 'a')), 'MASTER_KEY_UNAVAILABLE');
  t.same(rewrapSecret(onlyNew, moved, 'a'), moved, 'already under the active key: unchanged');
});
