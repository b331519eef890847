// Guards where master keys come from: env list, env-named file, or a generated 0600 file so a fresh machine just runs.
import t from 'tap';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { defaultMasterKeyFileFor, loadKeyRing } from '../../../runtime/vault/master-key-source.js';
import { expectVaultError } from './expect-vault-error.js';

const b64 = (label: string) => createHash('sha256').update(label).digest('base64');
const ephemeral = { kind: 'ephemeral' } as const;
const aad = Buffer.from('binding');

t.test('SWITCHYARD_MASTER_KEYS: comma-separated list, first active', async (t) => {
  const loaded = loadKeyRing({ env: { SWITCHYARD_MASTER_KEYS: `k2:${b64('2')},k1:${b64('1')}` }, fallback: ephemeral });
  t.equal(loaded.source, 'env');
  t.equal(loaded.path, null);
  t.same(loaded.ring.keyIds, ['k2', 'k1']);
});

t.test('SWITCHYARD_MASTER_KEY_FILE: one entry per line; loose permissions warn without printing keys', async (t) => {
  const dir = t.testdir();
  const file = join(dir, 'keys');
  writeFileSync(file, `# rotation\nk2:${b64('2')}\nk1:${b64('1')}\n`, { mode: 0o600 });
  const loaded = loadKeyRing({ env: { SWITCHYARD_MASTER_KEY_FILE: file }, fallback: ephemeral });
  t.equal(loaded.source, 'env-file');
  t.equal(loaded.path, file);
  t.same(loaded.ring.keyIds, ['k2', 'k1']);
  t.same(loaded.warnings, []);
  chmodSync(file, 0o644);
  const loose = loadKeyRing({ env: { SWITCHYARD_MASTER_KEY_FILE: file }, fallback: ephemeral });
  t.equal(loose.warnings.length, 1);
  t.match(loose.warnings[0], /chmod 600/);
  t.notMatch(loose.warnings[0], b64('2').slice(0, 12));
});

t.test('configuration errors are clear and carry no key material', async (t) => {
  const dir = t.testdir();
  const secret = b64('secret');
  expectVaultError(
    t,
    () => loadKeyRing({ env: { SWITCHYARD_MASTER_KEYS: `k1:${secret}`, SWITCHYARD_MASTER_KEY_FILE: join(dir, 'k') }, fallback: ephemeral }),
    'KEY_RING_INVALID',
    'both variables set',
    [secret],
  );
  expectVaultError(t, () => loadKeyRing({ env: { SWITCHYARD_MASTER_KEY_FILE: join(dir, 'missing') }, fallback: ephemeral }), 'KEY_RING_INVALID', 'missing file');
  const bad = join(dir, 'bad');
  writeFileSync(bad, `k1:${secret.slice(0, 30)}\n`, { mode: 0o600 });
  expectVaultError(t, () => loadKeyRing({ env: { SWITCHYARD_MASTER_KEY_FILE: bad }, fallback: ephemeral }), 'KEY_RING_INVALID', 'short key in file', [
    secret.slice(0, 30),
  ]);
  expectVaultError(t, () => loadKeyRing({ env: { SWITCHYARD_MASTER_KEYS: secret }, fallback: ephemeral }), 'KEY_RING_INVALID', 'bare key in env', [
    secret,
  ]);
});

t.test('no configuration and an in-memory database: an ephemeral random key', async (t) => {
  const a = loadKeyRing({ env: {}, fallback: ephemeral });
  const b = loadKeyRing({ env: { SWITCHYARD_MASTER_KEYS: '', SWITCHYARD_MASTER_KEY_FILE: '  ' }, fallback: ephemeral });
  t.equal(a.source, 'ephemeral');
  t.equal(b.source, 'ephemeral', 'empty variables count as unset');
  const wrapped = a.ring.wrap(randomBytes(32), aad);
  expectVaultError(t, () => b.ring.unwrap(wrapped, aad), 'GRANT_UNOPENABLE', 'two ephemeral rings share nothing');
});

t.test('no configuration and a database file: key generated once into a 0600 file, reused on restart', async (t) => {
  const dir = t.testdir();
  const path = defaultMasterKeyFileFor(join(dir, 'nested', 'switchyard.db'));
  if (path === null) throw new Error('expected a key file path for a file database');
  t.equal(path, join(dir, 'nested', 'switchyard.db.master-keys'));

  const first = loadKeyRing({ env: {}, fallback: { kind: 'file', path } });
  t.equal(first.source, 'generated-file');
  t.equal(first.path, path);
  t.same(first.warnings, []);
  t.equal(statSync(path).mode & 0o777, 0o600, 'owner-only permissions');
  t.match(first.ring.activeKeyId, /^auto-[0-9a-f]{8}$/);
  t.same(readdirSync(join(dir, 'nested')), ['switchyard.db.master-keys'], 'no temp file left behind');

  const dataKey = randomBytes(32);
  const wrapped = first.ring.wrap(dataKey, aad);
  const restart = loadKeyRing({ env: {}, fallback: { kind: 'file', path } });
  t.equal(restart.source, 'default-file');
  t.equal(restart.ring.activeKeyId, first.ring.activeKeyId);
  t.same(restart.ring.unwrap(wrapped, aad), dataKey, 'a grant sealed before restart opens after it');

  // Rotation with the generated file: prepend a new key, keep the old line.
  writeFileSync(path, `rotated:${b64('rotated')}\n${readFileSync(path, 'utf8')}`);
  const rotated = loadKeyRing({ env: {}, fallback: { kind: 'file', path } });
  t.equal(rotated.ring.activeKeyId, 'rotated');
  t.same(rotated.ring.unwrap(wrapped, aad), dataKey);

  const configured = loadKeyRing({ env: { SWITCHYARD_MASTER_KEYS: `e1:${b64('e1')}` }, fallback: { kind: 'file', path: join(dir, 'unused') } });
  t.equal(configured.source, 'env', 'explicit configuration wins over the default file');
  t.same(readdirSync(dir).sort(), ['nested'], 'and nothing is generated');
});

t.test('defaultMasterKeyFileFor: none for in-memory databases', async (t) => {
  t.equal(defaultMasterKeyFileFor(':memory:'), null);
  t.equal(defaultMasterKeyFileFor(''), null);
  t.equal(defaultMasterKeyFileFor('file::memory:?cache=shared'), null);
  t.equal(defaultMasterKeyFileFor('/var/lib/switchyard/data.db'), '/var/lib/switchyard/data.db.master-keys');
});
