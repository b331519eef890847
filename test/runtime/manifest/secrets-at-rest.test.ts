// Manifest secrets at rest: in no row of either engine, and (SQLite) in no byte of the database file or its WAL.
import t, { type Test } from 'tap';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../runtime/clock.js';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import { openStore } from '../../../storage/store.js';
import { sqliteOnly } from '../../helpers/server.js';
import { openTestStore } from '../../helpers/test-store.js';
import { example, tableNames, testKeyRing } from './manifest-fixtures.js';

/** Every byte SQLite wrote for this database: the file, its WAL and shared-memory index when present. */
function databaseBytes(path: string): Buffer {
  return Buffer.concat([path, `${path}-wal`, `${path}-shm`].filter(existsSync).map((file) => readFileSync(file)));
}

/** The manifest's secrets: passwords, tokens, the endpoint secret and the random part of each key applied. */
function secretsOf(manifest: any, refs: Record<string, string>): string[] {
  return [
    ...manifest.organizations.flatMap((org: any) => org.users.map((user: any) => user.password)),
    'org-token-123',
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    // The random part of each key secret (the prefix alone is not secret).
    ...['ada-key', 'bob-key', 'eve-key', 'gina-key', 'northwind-key'].map((ref) => refs[ref]!.slice(refs[ref]!.indexOf('_') + 1)),
  ];
}

/** Searches `bytes` for each secret, after positive controls that show the search finds what is stored. */
function checkNoSecret(t: Test, bytes: Buffer, secrets: string[], when: string): void {
  t.ok(bytes.includes('ada@acme.test'), `${when}: the email is stored`);
  t.ok(bytes.includes('Contact lookup'), `${when}: the agent name is stored`);
  for (const secret of secrets) {
    t.notOk(bytes.includes(Buffer.from(secret, 'utf8')), `${when}: "${secret.slice(0, 3)}…" is not in clear`);
    t.notOk(bytes.includes(Buffer.from(secret, 'utf16le')), `${when}: not in clear as UTF-16 either`);
  }
}

t.test('no secret of the manifest is stored in clear in any row (either engine)', async (t) => {
  const db = await openTestStore(t);
  const manifest = example();
  const { refs } = await applyManifest(db.store, manifest, { clock: new ManualClock(), keyRing: testKeyRing() });
  const secrets = secretsOf(manifest, refs);
  t.equal(secrets.length, 11);
  // Every column of every row, binary columns as their raw bytes (a secret in a blob in clear would show).
  const cells: Buffer[] = [];
  for (const table of await tableNames(db)) {
    for (const row of await db.sql.all(`SELECT * FROM "${table}"`)) {
      for (const value of Object.values(row)) cells.push(Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'utf8'));
    }
  }
  checkNoSecret(t, Buffer.concat(cells), secrets, `every row on ${db.engine}`);
});

t.test('no secret of the manifest reaches the database file in clear (WAL included)', { skip: sqliteOnly('the bytes of the SQLite file and its WAL') }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-secrets-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'switchyard.db');
  const manifest = example();
  const store = openStore({ path });
  const { refs } = await applyManifest(store, manifest, { clock: new ManualClock(), keyRing: testKeyRing() });
  const secrets = secretsOf(manifest, refs);
  checkNoSecret(t, databaseBytes(path), secrets, 'open (WAL holds the writes)');
  store.close();
  checkNoSecret(t, databaseBytes(path), secrets, 'closed (checkpointed into the file)');
});
