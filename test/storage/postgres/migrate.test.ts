// PostgreSQL migrations: fresh apply, idempotent re-apply, one apply under concurrency, a newer schema refused, all or nothing.
import t, { type Test } from 'tap';
import { usePostgres } from '../../helpers/postgres.js';
import { connectPostgres, type PostgresPool } from '../../../storage/postgres/connection.js';
import { FutureSchemaError, migratePostgres, schemaVersion } from '../../../storage/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../../storage/postgres/migrations/index.js';

const pg = await usePostgres(t);
const known = Math.max(...POSTGRES_MIGRATIONS.map((m) => m.version));

async function pool(t: Test, url: string): Promise<PostgresPool> {
  const p = await connectPostgres({ url, applicationName: 'switchyard-migrate-test' });
  t.teardown(() => p.end());
  return p;
}

const tables = async (p: PostgresPool) =>
  (await p.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).rows.map((r) => r.name);
const recorded = async (p: PostgresPool) =>
  (await p.query<{ version: number; name: string }>('SELECT version, name FROM switchyard_schema ORDER BY version')).rows;

t.test('a fresh database gets every migration, recorded one row each', { skip: pg.skip }, async (t) => {
  const db = await pool(t, await pg.database(t));
  t.equal(await schemaVersion(db), 0, 'an empty database is at version 0');
  t.same(await migratePostgres(db), POSTGRES_MIGRATIONS.map((m) => m.version));
  t.same(await recorded(db), POSTGRES_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  t.equal(await schemaVersion(db), known);
  const names = await tables(db);
  for (const table of ['organizations', 'trigger_runs', 'sessions', 'session_events', 'articles', 'actor_snapshots', 'switchyard_schema']) {
    t.ok(names.includes(table), `has ${table}`);
  }
});

t.test('migrating a migrated database is a no-op', { skip: pg.skip }, async (t) => {
  const db = await pool(t, await pg.database(t));
  await migratePostgres(db);
  const before = await tables(db);
  t.same(await migratePostgres(db), []);
  t.same(await tables(db), before);
  t.equal((await recorded(db)).length, POSTGRES_MIGRATIONS.length);
});

t.test('two connections migrating at once: one applies everything, the other finds nothing pending', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const [a, b] = [await pool(t, url), await pool(t, url)];
  const results = await Promise.all([migratePostgres(a), migratePostgres(b)]);
  const applied = results.map((versions) => versions.length).sort((x, y) => x - y);
  t.same(applied, [0, POSTGRES_MIGRATIONS.length], 'exactly one of them applied the migrations');
  t.equal((await recorded(a)).length, POSTGRES_MIGRATIONS.length, 'each version recorded once');
});

t.test('a database migrated by a newer build is refused and left untouched', { skip: pg.skip }, async (t) => {
  const db = await pool(t, await pg.database(t));
  await db.query('CREATE TABLE switchyard_schema (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)');
  await db.query("INSERT INTO switchyard_schema VALUES ($1, 'from-the-future', 0)", [known + 10]);
  const refused: unknown = await migratePostgres(db).catch((error: unknown) => error);
  t.type(refused, FutureSchemaError);
  t.match((refused as Error).message, `schema version ${known + 10} is newer than this build knows (${known})`);
  t.same(await tables(db), ['switchyard_schema'], 'no table was created');
  t.same(await recorded(db), [{ version: known + 10, name: 'from-the-future' }]);
});

t.test('a failing migration applies nothing, not even the migrations before it', { skip: pg.skip }, async (t) => {
  const db = await pool(t, await pg.database(t));
  const broken = { version: known + 10, name: 'broken', up: async () => { throw new Error('boom'); } };
  await t.rejects(migratePostgres(db, [...POSTGRES_MIGRATIONS, broken]), /boom/);
  t.same(await tables(db), [], 'no table, not even the version table');
  t.same(await migratePostgres(db), POSTGRES_MIGRATIONS.map((m) => m.version), 'the pool still works and a clean run applies');
});

t.test('migration versions are unique and step by 10', async (t) => {
  const versions = POSTGRES_MIGRATIONS.map((m) => m.version);
  t.equal(new Set(versions).size, versions.length);
  for (const v of versions) t.equal(v % 10, 0, `version ${v}`);
  t.same(versions, [...versions].sort((a, b) => a - b), 'listed in order');
});
