// The database a test runs on in the test storage mode (SWITCHYARD_TEST_STORAGE): none on SQLite, a fresh PostgreSQL one.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The engine the service-level tests run on (SWITCHYARD_TEST_STORAGE): sqlite by default. */
export const testStorage: 'sqlite' | 'postgres' = process.env.SWITCHYARD_TEST_STORAGE === 'postgres' ? 'postgres' : 'sqlite';


/**
 * Names a migrated database to copy test databases from (set by .ci/with-postgres.ts): a file copy is ~12 ms, where
 * creating and migrating an empty one is ~170 ms for each server and store a test opens. Without it, each database
 * starts empty and the service migrates it, as a new deployment's does.
 */
export const TEMPLATE_ENV = 'SWITCHYARD_TEST_DATABASE_TEMPLATE';

/** Databases created for a `dbPath`, so a test that restarts its server or store on the same path finds its data again. */
const databasesByPath = new Map<string, { url: string; users: number }>();

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(sql).finally(() => admin.end());
}

/**
 * SWITCHYARD_TEST_STORAGE=postgres runs the test's server or store on a fresh database of SWITCHYARD_TEST_DATABASE_URL's server (a
 * role that may CREATE DATABASE); the same `dbPath` names the same database, as the same file does on SQLite.
 * Returns null on SQLite; else the URL and the drop to run after the server or store closed (once its last user is done).
 */
export async function testDatabase(dbPath: string | undefined): Promise<{ url: string; drop(): Promise<void> } | null> {
  if (testStorage !== 'postgres') return null;
  const adminUrl = process.env.SWITCHYARD_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('SWITCHYARD_TEST_STORAGE=postgres needs SWITCHYARD_TEST_DATABASE_URL');
  const key = dbPath === undefined || dbPath === ':memory:' ? null : dbPath;
  let entry = key === null ? undefined : databasesByPath.get(key);
  const name = entry === undefined ? `switchyard_http_${randomBytes(6).toString('hex')}` : new URL(entry.url).pathname.slice(1);
  if (entry === undefined) {
    const template = process.env[TEMPLATE_ENV];
    await adminQuery(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template} STRATEGY FILE_COPY` : ''}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    entry = { url: url.toString(), users: 0 };
    if (key !== null) databasesByPath.set(key, entry);
  }
  const shared = entry;
  shared.users++;
  return {
    url: shared.url,
    async drop() {
      // The last server on a path drops it, after its own close (see the teardown in startTestServer).
      if (--shared.users > 0) return;
      if (key !== null) databasesByPath.delete(key);
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
