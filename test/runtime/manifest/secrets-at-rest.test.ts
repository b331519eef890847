import t from 'tap';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../runtime/clock.js';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import { openStore } from '../../../storage/store.js';
import { example, testKeyRing } from './manifest-fixtures.js';

/** Every byte SQLite wrote for this database: the file, its WAL and shared-memory index when present. */
function databaseBytes(path: string): Buffer {
  return Buffer.concat([path, `${path}-wal`, `${path}-shm`].filter(existsSync).map((file) => readFileSync(file)));
}

t.test('no secret of the manifest reaches the database file in clear (WAL included)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-secrets-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'switchyard.db');
  const manifest = example();
  const store = openStore({ path });
  const { refs } = await applyManifest(store, manifest, { clock: new ManualClock(), keyRing: testKeyRing() });

  const secrets = [
    ...manifest.organizations.flatMap((org: any) => org.users.map((user: any) => user.password)),
    'org-token-123',
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    // The random part of each key secret (the prefix alone is not secret).
    ...['ada-key', 'bob-key', 'eve-key', 'gina-key', 'northwind-key'].map((ref) => refs[ref]!.slice(refs[ref]!.indexOf('_') + 1)),
  ];
  t.equal(secrets.length, 11);

  const check = (bytes: Buffer, when: string) => {
    // Positive controls: what is not secret is found, so the search itself works.
    t.ok(bytes.includes('ada@acme.test'), `${when}: the email is stored`);
    t.ok(bytes.includes('Contact lookup'), `${when}: the agent name is stored`);
    for (const secret of secrets) {
      t.notOk(bytes.includes(Buffer.from(secret, 'utf8')), `${when}: "${secret.slice(0, 3)}…" is not in clear`);
      t.notOk(bytes.includes(Buffer.from(secret, 'utf16le')), `${when}: not in clear as UTF-16 either`);
    }
  };
  check(databaseBytes(path), 'open (WAL holds the writes)');
  store.close();
  check(databaseBytes(path), 'closed (checkpointed into the file)');
});
