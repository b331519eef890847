// Guards master-key parsing (clear errors, no key material in them), data-key wrapping, and rotation by rewrap.
import t, { type Test } from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { createKeyRing, generateMasterKeyEntry, parseKeyRing, WRAPPED_KEY_BYTES } from '../../../runtime/vault/key-ring.js';
import { isVaultError, VaultError } from '../../../runtime/vault/vault-error.js';
import { expectVaultError } from './expect-vault-error.js';

const keyBytes = (label: string, length = 32) => createHash('sha512').update(label).digest().subarray(0, length);
const b64 = (label: string, length = 32) => keyBytes(label, length).toString('base64');
const env = (...entries: string[]) => parseKeyRing(entries.join(','), { separator: 'comma', source: 'SWITCHYARD_MASTER_KEYS' });
const aad = Buffer.from('grant-binding');

/** No 8-character run of any secret appears in the text: catches partial echoes, not just whole keys. */
function assertNoMaterial(t: Test, text: string, secrets: string[], what: string) {
  const leaks = secrets.flatMap((secret) =>
    Array.from({ length: Math.max(0, secret.length - 7) }, (_, i) => secret.slice(i, i + 8)).filter((run) => text.includes(run)),
  );
  t.same(leaks, [], `${what} contains no key material`);
}

t.test('parses keyId:base64key entries; the first is active (rotation order)', async (t) => {
  const ring = env(`new:${b64('new')}`, ` old:${b64('old')} `);
  t.equal(ring.activeKeyId, 'new');
  t.same(ring.keyIds, ['new', 'old']);
  t.ok(ring.hasKey('old'));
  t.notOk(ring.hasKey('other'));
  t.equal(env(`k1:${b64('a')}`, '').activeKeyId, 'k1', 'a trailing comma is harmless');
  t.equal(env(`k1:${keyBytes('a').toString('base64url')}`).activeKeyId, 'k1', 'URL-safe base64 without padding is accepted');
});

t.test('file format: one entry per line, comments, blank lines and CRLF allowed', async (t) => {
  const text = `# rotated 2026-01\r\nk2:${b64('k2')}\r\n\r\n  # retired soon\nk1:${b64('k1')}\n`;
  const ring = parseKeyRing(text, { separator: 'line', source: 'key file' });
  t.same(ring.keyIds, ['k2', 'k1']);
});

t.test('invalid configurations fail with clear errors that never include key material', async (t) => {
  const good = b64('good');
  const cases: { name: string; text: string; secrets: string[]; expect: RegExp }[] = [
    { name: 'empty list', text: ' , ', secrets: [], expect: /no master keys/ },
    { name: 'bare key without id', text: good, secrets: [good], expect: /entry 1: expected "keyId:base64key"/ },
    { name: 'id only', text: 'k1:', secrets: [], expect: /expected "keyId:base64key"/ },
    { name: 'key before id', text: `${good}:k1`, secrets: [good], expect: /entry 1: key id must be/ },
    { name: 'short key (31 bytes)', text: `k1:${b64('short', 31)}`, secrets: [b64('short', 31)], expect: /exactly 32 bytes \(got 31\)/ },
    { name: 'long key (33 bytes)', text: `k1:${b64('long', 33)}`, secrets: [b64('long', 33)], expect: /exactly 32 bytes \(got 33\)/ },
    { name: 'hex instead of base64', text: `k1:${keyBytes('hex').toString('hex')}`, secrets: [keyBytes('hex').toString('hex')], expect: /exactly 32 bytes/ },
    { name: 'not base64', text: `k1:${good.slice(0, 20)}!!${good.slice(22)}`, secrets: [good], expect: /not valid base64/ },
    { name: 'id with a space', text: `my key:${good}`, secrets: [good], expect: /key id must be/ },
    { name: 'id of 65 characters', text: `${'k'.repeat(65)}:${good}`, secrets: [good], expect: /key id must be/ },
    { name: 'duplicate id', text: `k1:${good},k1:${b64('other')}`, secrets: [good, b64('other')], expect: /entry 2: key id repeats/ },
    { name: 'second entry broken', text: `k1:${good},k2:${b64('bad', 16)}`, secrets: [good, b64('bad', 16)], expect: /entry 2: key must decode/ },
  ];
  for (const c of cases) {
    const error = t.throws(() => env(c.text), c.name) as unknown;
    t.ok(isVaultError(error, 'KEY_RING_INVALID'), `${c.name}: KEY_RING_INVALID`);
    if (!(error instanceof VaultError)) continue;
    t.match(error.message, c.expect, `${c.name}: message explains`);
    t.match(error.message, /SWITCHYARD_MASTER_KEYS/, `${c.name}: message names the source`);
    assertNoMaterial(t, `${error.message}\n${error.stack}\n${inspect(error)}`, c.secrets, c.name);
  }
  const error = t.throws(() => parseKeyRing(`# c\nk1:${b64('k', 31)}`, { separator: 'line', source: 'key file /etc/k' })) as Error;
  t.match(error.message, /key file \/etc\/k line 2:/, 'file errors give the line number');
});

t.test('the ring never exposes key material through inspection or JSON', async (t) => {
  const a = b64('a');
  const ring = env(`k1:${a}`);
  const seen = `${inspect(ring, { depth: 10, showHidden: true })}\n${JSON.stringify(ring)}`;
  assertNoMaterial(t, seen, [a, keyBytes('a').toString('hex')], 'inspect/JSON of the ring');
});

t.test('createKeyRing validates entries and zeroes the given key buffers', async (t) => {
  const key = Buffer.from(keyBytes('z'));
  const ring = createKeyRing([{ keyId: 'z1', key }]);
  t.equal(ring.activeKeyId, 'z1');
  t.ok(key.every((byte) => byte === 0), 'caller buffer zeroed');
  expectVaultError(t, () => createKeyRing([]), 'KEY_RING_INVALID', 'empty ring');
  expectVaultError(t, () => createKeyRing([{ keyId: 'bad:id', key: Buffer.from(keyBytes('q')) }]), 'KEY_RING_INVALID', 'id with a colon');
  t.throws(() => createKeyRing([{ keyId: 'k', key: Buffer.alloc(16) }]), /exactly 32 bytes \(got 16\)/);
});

t.test('wrap and unwrap a data key; the AAD binds it', async (t) => {
  const ring = env(`k1:${b64('k1')}`);
  const dataKey = randomBytes(32);
  const wrapped = ring.wrap(dataKey, aad);
  t.equal(wrapped.keyId, 'k1');
  t.equal(wrapped.wrappedKey.length, WRAPPED_KEY_BYTES);
  t.notOk(wrapped.wrappedKey.includes(dataKey), 'wrapped key does not contain the data key');
  t.same(ring.unwrap(wrapped, aad), dataKey);
  expectVaultError(t, () => ring.unwrap(wrapped, Buffer.from('other-binding')), 'GRANT_UNOPENABLE', 'other AAD');
  const flipped = Buffer.from(wrapped.wrappedKey);
  flipped[flipped.length - 1] ^= 1;
  expectVaultError(t, () => ring.unwrap({ keyId: 'k1', wrappedKey: flipped }, aad), 'GRANT_UNOPENABLE', 'flipped bit');
  expectVaultError(t, () => ring.unwrap({ keyId: 'k1', wrappedKey: wrapped.wrappedKey.subarray(1) }, aad), 'GRANT_MALFORMED', 'truncated');
  expectVaultError(t, () => ring.unwrap({ keyId: 'gone', wrappedKey: wrapped.wrappedKey }, aad), 'MASTER_KEY_UNAVAILABLE', 'unknown key id');
  expectVaultError(t, () => ring.wrap(randomBytes(16), aad), 'GRANT_MALFORMED', '16-byte data key');
  t.not(ring.wrap(dataKey, aad).wrappedKey.toString('hex'), wrapped.wrappedKey.toString('hex'), 'a fresh IV per wrap');
});

t.test('rotation: old key still unwraps, rewrap moves to the active key, retiring the old key ends access', async (t) => {
  const dataKey = randomBytes(32);
  const before = env(`old:${b64('old')}`);
  const wrapped = before.wrap(dataKey, aad);

  const rotated = env(`new:${b64('new')}`, `old:${b64('old')}`);
  t.same(rotated.unwrap(wrapped, aad), dataKey, 'opens under the rotated ring while old is kept');
  const moved = rotated.rewrap(wrapped, aad);
  t.equal(moved.keyId, 'new');
  expectVaultError(t, () => rotated.rewrap(wrapped, Buffer.from('other')), 'GRANT_UNOPENABLE', 'rewrap checks the binding');

  const retired = env(`new:${b64('new')}`);
  t.same(retired.unwrap(moved, aad), dataKey, 'rewrapped key opens without the old key');
  expectVaultError(t, () => retired.unwrap(wrapped, aad), 'MASTER_KEY_UNAVAILABLE', 'not rewrapped: unopenable once old is removed');
});

t.test('generateMasterKeyEntry produces a parseable 32-byte key', async (t) => {
  const line = generateMasterKeyEntry('gen-1');
  t.match(line, /^gen-1:[A-Za-z0-9+/]{43}=$/);
  t.equal(parseKeyRing(line, { separator: 'line', source: 'generated' }).activeKeyId, 'gen-1');
  t.not(generateMasterKeyEntry('gen-1'), line, 'random each time');
  expectVaultError(t, () => generateMasterKeyEntry('no:colons'), 'KEY_RING_INVALID', 'id with a colon');
});
