// The PostgreSQL schema has SQLite's meaning after every migration: same tables, columns, keys, indexes, foreign keys, CHECKs.
import t from 'tap';
import { openDatabase } from '../../../storage/database.js';
import { migrate } from '../../../storage/migrate.js';
import { connectPostgres } from '../../../storage/postgres/connection.js';
import { migratePostgres } from '../../../storage/postgres/migrate.js';
import { usePostgres } from '../../helpers/postgres.js';
import { normalizeSql, postgresShape, sqliteShape } from '../../helpers/schema-shape.js';

/**
 * Intended differences, each with its reason. Anything else that differs fails the test: a SQLite migration
 * without its PostgreSQL counterpart (or the reverse) cannot land unnoticed.
 */
const SQLITE_ONLY_TABLES = {
  // Knowledge search: FTS5's contentless index and its shadow tables, and the stable rowid map with its cleanup
  // trigger, are one tsvector column (articles.published_search) with a GIN index on PostgreSQL.
  articles_fts: 'FTS5 index', articles_fts_config: 'FTS5 shadow', articles_fts_data: 'FTS5 shadow',
  articles_fts_docsize: 'FTS5 shadow', articles_fts_idx: 'FTS5 shadow', article_fts_rows: 'FTS5 rowid map',
  // SQLite's AUTOINCREMENT bookkeeping (article_fts_rows).
  sqlite_sequence: 'AUTOINCREMENT counters',
};
const POSTGRES_ONLY_TABLES = {
  // The migration runner's version table; SQLite keeps the version in PRAGMA user_version.
  switchyard_schema: 'schema versions',
  // Single-writer ownership across nodes (storage/postgres/leases.ts); one SQLite process owns everything.
  resource_leases: 'coordination leases',
};
const SQLITE_ONLY_LINES = [
  // users.email is COLLATE NOCASE UNIQUE on SQLite: a unique index on lower(email) on PostgreSQL (lookups use lower()).
  'unique users (email)',
];
const POSTGRES_ONLY_LINES = [
  'index users_email on users unique (lower(email))',
  // The FTS replacement (see above): published text's tsvector, only on published articles.
  'column articles.published_search tsvector',
  'index articles_search on articles using gin (published_search)',
  `check articles ${normalizeSql('published_search IS NULL OR published_at IS NOT NULL')}`,
  // SQLite's implicit rowid made explicit (an identity column): the stable key active snapshots are paged by.
  'column actor_snapshots.rowid integer not null',
];

/** The table a shape line is about. */
function tableOf(line: string): string {
  const match = /^(?:index|trigger) \S+ on (\S+)/.exec(line) ?? /^(?:table|column|primary key|check|unique|foreign key) ([^ .]+)/.exec(line);
  return match![1]!;
}

function withoutIntended(lines: string[], tables: Record<string, string>, intended: string[]): string[] {
  return lines.filter((line) => !(tableOf(line) in tables) && !intended.includes(line));
}

const pg = await usePostgres(t);

t.test('SQLite after migrate() and PostgreSQL after migratePostgres() describe the same schema', { skip: pg.skip }, async (t) => {
  const sqlite = openDatabase(':memory:');
  t.teardown(() => sqlite.close());
  migrate(sqlite);
  const pool = await connectPostgres({ url: await pg.database(t) });
  t.teardown(() => pool.end());
  await migratePostgres(pool);
  const sqliteLines = sqliteShape(sqlite);
  const postgresLines = await postgresShape(pool);

  t.same(withoutIntended(postgresLines, POSTGRES_ONLY_TABLES, POSTGRES_ONLY_LINES), withoutIntended(sqliteLines, SQLITE_ONLY_TABLES, SQLITE_ONLY_LINES));

  // The allow-lists stay true: each intended difference is still there (a stale entry would hide nothing).
  for (const line of SQLITE_ONLY_LINES) t.ok(sqliteLines.includes(line), `SQLite still has: ${line}`);
  for (const line of POSTGRES_ONLY_LINES) t.ok(postgresLines.includes(line), `PostgreSQL still has: ${line}`);
  for (const table of Object.keys(SQLITE_ONLY_TABLES)) t.ok(sqliteLines.includes(`table ${table}`), `SQLite still has table ${table}`);
  for (const table of Object.keys(POSTGRES_ONLY_TABLES)) t.ok(postgresLines.includes(`table ${table}`), `PostgreSQL still has table ${table}`);

  // The claim index losing its predicate (one firing per key forever, even after expiry) is a difference it reports.
  await pool.query('DROP INDEX trigger_runs_claim; CREATE UNIQUE INDEX trigger_runs_claim ON trigger_runs (org_id, claim_key)');
  const drifted = withoutIntended(await postgresShape(pool), POSTGRES_ONLY_TABLES, POSTGRES_ONLY_LINES);
  t.ok(drifted.includes('index trigger_runs_claim on trigger_runs unique (org_id, claim_key)'), 'the drifted index is seen');
  t.notSame(drifted, withoutIntended(sqliteLines, SQLITE_ONLY_TABLES, SQLITE_ONLY_LINES));
});

t.test('the comparison sees what matters: a missing partial predicate, a changed default, a dropped CHECK', async (t) => {
  const base = openDatabase(':memory:');
  base.exec(`CREATE TABLE runs (id TEXT PRIMARY KEY, state TEXT NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'done')), key TEXT) STRICT;
             CREATE UNIQUE INDEX runs_key ON runs(key) WHERE key IS NOT NULL;`);
  const variants = [
    `CREATE TABLE runs (id TEXT PRIMARY KEY, state TEXT NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'done')), key TEXT) STRICT;
     CREATE UNIQUE INDEX runs_key ON runs(key);`,
    `CREATE TABLE runs (id TEXT PRIMARY KEY, state TEXT NOT NULL DEFAULT 'old' CHECK (state IN ('new', 'done')), key TEXT) STRICT;
     CREATE UNIQUE INDEX runs_key ON runs(key) WHERE key IS NOT NULL;`,
    `CREATE TABLE runs (id TEXT PRIMARY KEY, state TEXT NOT NULL DEFAULT 'new', key TEXT) STRICT;
     CREATE UNIQUE INDEX runs_key ON runs(key) WHERE key IS NOT NULL;`,
  ];
  for (const sql of variants) {
    const other = openDatabase(':memory:');
    other.exec(sql);
    t.not(sqliteShape(other).join('\n'), sqliteShape(base).join('\n'));
    other.close();
  }
  t.equal(normalizeSql("(status = ANY (ARRAY['queued'::text, 'running'::text]))"), normalizeSql("status IN ('queued', 'running')"), 'PostgreSQL spelling of IN');
  t.equal(normalizeSql("'[]'::jsonb"), normalizeSql("'[]'"), 'casts dropped');
  t.equal(normalizeSql('false'), normalizeSql('0'), 'booleans as integers');
});
