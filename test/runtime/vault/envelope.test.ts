// Guards grant sealing (SPEC rule 7, encrypted at rest): round trip, binding to org/execution/grant, tamper detection, rotation.
import t from 'tap';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { callerCredentialsSchema, normalizeCallerCredentials } from '../../../runtime/vault/caller-credentials.schema.js';
import { createGrantEnvelope, type GrantBinding, type SealedGrant } from '../../../runtime/vault/envelope.js';
import { parseKeyRing, type KeyRing } from '../../../runtime/vault/key-ring.js';
import { expectVaultError } from './expect-vault-error.js';

const b64 = (label: string) => createHash('sha256').update(label).digest('base64');
const ring = (...ids: string[]) => parseKeyRing(ids.map((id) => `${id}:${b64(id)}`).join(','), { separator: 'comma', source: 'test keys' });

const TOKEN = 'ghp_CallerSecretToken_5b1e9c';
const FIELD_SECRET = 'field-secret-value-a41d';
const binding: GrantBinding = { grantId: 'grant-1', orgId: 'org-a', executionId: 'exec-1' };
const credentials = callerCredentialsSchema.parse({
  integrations: {
    github: { token: TOKEN },
    crm: { fields: { apiSecret: FIELD_SECRET, region: 'eu' }, fallbackAllowed: false },
    empty: {},
  },
});

const allBytes = (sealed: SealedGrant) => Buffer.concat([Buffer.from(sealed.keyId), sealed.wrappedKey, sealed.iv, sealed.tag, sealed.ciphertext]);
const flip = (buffer: Buffer, index: number) => {
  const copy = Buffer.from(buffer);
  copy[index] ^= 0x01;
  return copy;
};

t.test('round trip returns the normalized credentials', async (t) => {
  const envelope = createGrantEnvelope(ring('k1'));
  const sealed = envelope.sealGrant({ ...binding, credentials });
  t.equal(sealed.version, 1);
  t.equal(sealed.keyId, 'k1');
  t.equal(sealed.iv.length, 12);
  t.equal(sealed.tag.length, 16);
  t.equal(sealed.wrappedKey.length, 60);
  t.same(envelope.openGrant(sealed, binding), normalizeCallerCredentials(credentials));
  t.same(Object.keys(envelope.openGrant(sealed, binding).integrations), ['crm', 'github'], '{} entry normalized away');
});

t.test('sealed bytes never contain the plaintext secrets', async (t) => {
  const sealed = createGrantEnvelope(ring('k1')).sealGrant({ ...binding, credentials });
  const bytes = allBytes(sealed);
  for (const secret of [TOKEN, FIELD_SECRET, 'apiSecret', 'github']) {
    t.notOk(bytes.includes(Buffer.from(secret)), `no ${secret} in clear`);
    t.notOk(bytes.toString('base64').includes(Buffer.from(secret).toString('base64').slice(0, 12)), `no ${secret} in base64`);
  }
});

t.test('every seal uses a fresh data key and IV', async (t) => {
  const envelope = createGrantEnvelope(ring('k1'));
  const a = envelope.sealGrant({ ...binding, credentials });
  const b = envelope.sealGrant({ ...binding, credentials });
  t.not(a.iv.toString('hex'), b.iv.toString('hex'));
  t.not(a.wrappedKey.toString('hex'), b.wrappedKey.toString('hex'));
  t.not(a.ciphertext.toString('hex'), b.ciphertext.toString('hex'));
  // Swapping wrapped keys between two grants of the same binding must not open either.
  expectVaultError(t, () => envelope.openGrant({ ...a, wrappedKey: b.wrappedKey }, binding), 'GRANT_UNOPENABLE', 'swapped data key', [TOKEN]);
});

t.test('a grant moved to another org, execution or grant id does not open', async (t) => {
  const envelope = createGrantEnvelope(ring('k1'));
  const sealed = envelope.sealGrant({ ...binding, credentials });
  const moves: Record<string, GrantBinding> = {
    'other org': { ...binding, orgId: 'org-b' },
    'other execution': { ...binding, executionId: 'exec-2' },
    'other grant id': { ...binding, grantId: 'grant-2' },
    'fields shifted across the boundary': { grantId: 'grant-1', orgId: 'org-aexec', executionId: '-1' },
  };
  for (const [name, other] of Object.entries(moves)) {
    expectVaultError(t, () => envelope.openGrant(sealed, other), 'GRANT_UNOPENABLE', name, [TOKEN, FIELD_SECRET]);
  }
  expectVaultError(t, () => envelope.openGrant(sealed, { ...binding, orgId: '' }), 'GRANT_MALFORMED', 'empty binding field');
});

t.test('tampering with any stored part is detected', async (t) => {
  const envelope = createGrantEnvelope(ring('k1'));
  const sealed = envelope.sealGrant({ ...binding, credentials });
  const tampered: Record<string, SealedGrant> = {
    'ciphertext first byte': { ...sealed, ciphertext: flip(sealed.ciphertext, 0) },
    'ciphertext last byte': { ...sealed, ciphertext: flip(sealed.ciphertext, sealed.ciphertext.length - 1) },
    'ciphertext truncated': { ...sealed, ciphertext: sealed.ciphertext.subarray(0, -1) },
    tag: { ...sealed, tag: flip(sealed.tag, 15) },
    iv: { ...sealed, iv: flip(sealed.iv, 0) },
    'wrapped key iv': { ...sealed, wrappedKey: flip(sealed.wrappedKey, 0) },
    'wrapped key tag': { ...sealed, wrappedKey: flip(sealed.wrappedKey, 20) },
    'wrapped key body': { ...sealed, wrappedKey: flip(sealed.wrappedKey, 59) },
  };
  for (const [name, grant] of Object.entries(tampered)) {
    expectVaultError(t, () => envelope.openGrant(grant, binding), 'GRANT_UNOPENABLE', name, [TOKEN, FIELD_SECRET]);
  }
  expectVaultError(t, () => envelope.openGrant({ ...sealed, tag: sealed.tag.subarray(0, 12) }, binding), 'GRANT_MALFORMED', 'truncated tag refused');
  expectVaultError(t, () => envelope.openGrant({ ...sealed, wrappedKey: sealed.wrappedKey.subarray(0, 59) }, binding), 'GRANT_MALFORMED', 'short wrapped key');
  expectVaultError(t, () => envelope.openGrant({ ...sealed, version: 2 as 1 }, binding), 'GRANT_MALFORMED', 'unknown version');
  expectVaultError(t, () => envelope.openGrant({ ...sealed, keyId: 'k9' }, binding), 'MASTER_KEY_UNAVAILABLE', 'unknown key id');
});

t.test('rotation: open with the old key in the ring, rewrap to the active key, unopenable once the old key is gone', async (t) => {
  const sealed = createGrantEnvelope(ring('old')).sealGrant({ ...binding, credentials });
  const expected = normalizeCallerCredentials(credentials);

  const rotated = createGrantEnvelope(ring('new', 'old'));
  t.same(rotated.openGrant(sealed, binding), expected, 'opens after rotation while old stays in the ring');
  const moved = rotated.rewrapGrant(sealed, binding);
  t.equal(moved.keyId, 'new');
  t.same(moved.ciphertext, sealed.ciphertext, 'payload untouched by rewrap');
  t.same(moved.iv, sealed.iv);
  t.same(moved.tag, sealed.tag);
  t.equal(rotated.rewrapGrant(moved, binding), moved, 'already on the active key: returned as is');
  expectVaultError(t, () => rotated.rewrapGrant(sealed, { ...binding, orgId: 'org-b' }), 'GRANT_UNOPENABLE', 'rewrap under the wrong binding');

  const retired = createGrantEnvelope(ring('new'));
  t.same(retired.openGrant(moved, binding), expected, 'rewrapped grant opens without the old key');
  expectVaultError(t, () => retired.openGrant(sealed, binding), 'MASTER_KEY_UNAVAILABLE', 'not rewrapped and old key removed', [TOKEN]);
});

t.test('data-key buffers are zeroed after seal and open', async (t) => {
  const inner = ring('k1');
  const seen: Buffer[] = [];
  const spy: KeyRing = {
    ...inner,
    wrap: (dataKey, aad) => {
      seen.push(dataKey);
      return inner.wrap(dataKey, aad);
    },
    unwrap: (wrapped, aad) => {
      const dataKey = inner.unwrap(wrapped, aad);
      seen.push(dataKey);
      return dataKey;
    },
  };
  const envelope = createGrantEnvelope(spy);
  const sealed = envelope.sealGrant({ ...binding, credentials });
  envelope.openGrant(sealed, binding);
  expectVaultError(t, () => envelope.openGrant({ ...sealed, tag: flip(sealed.tag, 0) }, binding), 'GRANT_UNOPENABLE', 'failed open');
  t.equal(seen.length, 3);
  seen.forEach((key, i) => t.ok(key.length === 32 && key.every((byte) => byte === 0), `data key ${i + 1} zeroed`));
});

t.test('sealing refuses credentials that fail the schema, without echoing them', async (t) => {
  const envelope = createGrantEnvelope(ring('k1'));
  const bad = { integrations: { github: { token: `${TOKEN}\n`, fallbackAllowed: true } } };
  expectVaultError(t, () => envelope.sealGrant({ ...binding, credentials: bad }), 'GRANT_MALFORMED', 'token with newline', [TOKEN]);
});

t.test('property: any valid credentials object round-trips to its normalized form', async (t) => {
  const envelope = createGrantEnvelope(ring('k1'));
  const secret = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((s) => !/[\r\n]/.test(s));
  const entry = fc.record(
    {
      token: secret,
      fields: fc.dictionary(fc.stringMatching(/^[A-Za-z0-9_]{1,8}$/), secret, { minKeys: 1, maxKeys: 16 }),
      fallbackAllowed: fc.boolean(),
    },
    { requiredKeys: [] },
  );
  const input = fc.record({ integrations: fc.dictionary(fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).filter((k) => k !== '__proto__'), entry, { maxKeys: 5 }) });
  fc.assert(
    fc.property(input, (raw) => {
      const parsed = callerCredentialsSchema.parse(raw);
      const opened = envelope.openGrant(envelope.sealGrant({ ...binding, credentials: parsed }), binding);
      return JSON.stringify(opened) === JSON.stringify(normalizeCallerCredentials(parsed));
    }),
    { numRuns: 100 },
  );
  t.pass('100 random credential objects round-tripped');
});
