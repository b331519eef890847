import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../storage/database.js';
import { FutureSchemaError, latestVersion, migrate } from '../../storage/migrate.js';
import { MIGRATIONS } from '../../storage/migrations/index.js';
import { openStore } from '../../storage/store.js';

/** The error `work` throws (fails the test when it returns). */
function thrown(t: Test, work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  t.fail('expected to throw');
  return undefined;
}

const tableNames = (db: ReturnType<typeof openDatabase>) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger') ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);

t.test('a fresh database gets every migration and the latest user_version', async (t) => {
  const db = openDatabase(':memory:');
  const applied = migrate(db);
  t.same(applied, [...MIGRATIONS].map((m) => m.version).sort((a, b) => a - b));
  t.equal(db.pragma('user_version', { simple: true }), latestVersion());
  const names = tableNames(db);
  for (const table of ['organizations', 'manifest_refs', 'automations', 'triggers', 'subscriptions', 'articles', 'articles_fts', 'article_fts_rows', 'partners']) {
    t.ok(names.includes(table), `has ${table}`);
  }
  t.ok(names.includes('article_fts_rows_delete'), 'has the FTS cleanup trigger');
  t.equal((db.pragma('foreign_key_check') as unknown[]).length, 0);
});

t.test('migration versions are unique and step by 10', async (t) => {
  const versions = MIGRATIONS.map((m) => m.version);
  t.equal(new Set(versions).size, versions.length);
  for (const v of versions) t.equal(v % 10, 0, `version ${v}`);
});

t.test('re-running migrate on a migrated database is a no-op', async (t) => {
  const db = openDatabase(':memory:');
  migrate(db);
  const before = tableNames(db);
  t.same(migrate(db), []);
  t.same(tableNames(db), before);
  t.equal(db.pragma('user_version', { simple: true }), latestVersion());
});

t.test('a database from a future version is refused, untouched', async (t) => {
  const db = openDatabase(':memory:');
  db.pragma(`user_version = ${latestVersion() + 10}`);
  t.type(thrown(t, () => migrate(db)), FutureSchemaError);
  t.equal(db.pragma('user_version', { simple: true }), latestVersion() + 10);
  t.same(tableNames(db), []);
});

t.test('openStore refuses a future database file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-migrate-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'future.db');
  const db = openDatabase(path);
  db.pragma(`user_version = ${latestVersion() + 1}`);
  db.close();
  t.type(thrown(t, () => openStore({ path })), FutureSchemaError);
});

t.test('a failing migration applies nothing (one transaction)', async (t) => {
  const db = openDatabase(':memory:');
  const broken = { version: latestVersion() + 10, name: 'broken', up: () => { throw new Error('boom'); } };
  t.throws(() => migrate(db, [...MIGRATIONS, broken]), /boom/);
  t.equal(db.pragma('user_version', { simple: true }), 0);
  t.same(tableNames(db), []);
});

t.test('0160 moves each run\'s subscriber results into the run row in firing order, and drops the old table', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  migrate(db, MIGRATIONS.filter((m) => m.version <= 150));
  db.exec(`
    INSERT INTO organizations (id, name, created_at) VALUES ('o', 'Org', 0);
    INSERT INTO domains (id, org_id, name, created_at) VALUES ('d', 'o', 'Sales', 0);
    INSERT INTO triggers (id, org_id, domain_id, type, name, created_at) VALUES ('tr', 'o', 'd', 'api', 'T', 0);
    INSERT INTO trigger_runs (id, trigger_id, org_id, source, outcome, created_at) VALUES ('r1', 'tr', 'o', 'api', 'partial', 1), ('r2', 'tr', 'o', 'api', 'skipped', 2);
    INSERT INTO subscriber_results (run_id, automation_id, position, status, code, reason, session_id) VALUES
      ('r1', 'a2', 1, 'skipped', 'NOT_PUBLISHED', 'no version', NULL),
      ('r1', 'a1', 0, 'started', NULL, NULL, 's1');
  `);
  migrate(db);
  t.notOk(tableNames(db).includes('subscriber_results'));
  const results = (id: string) => JSON.parse((db.prepare('SELECT results FROM trigger_runs WHERE id = ?').get(id) as { results: string }).results);
  t.same(results('r1'), [
    { automationId: 'a1', position: 0, status: 'started', code: null, reason: null, sessionId: 's1' },
    { automationId: 'a2', position: 1, status: 'skipped', code: 'NOT_PUBLISHED', reason: 'no version', sessionId: null },
  ]);
  t.same(results('r2'), [], 'a run without results gets an empty list');
});
