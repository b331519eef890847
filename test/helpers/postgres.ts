// PostgreSQL for a test file: SWITCHYARD_TEST_DATABASE_URL, else a throwaway cluster; a fresh database per use; else a skip reason.
import type { Test } from 'tap';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { postgresBinDir, startCluster } from './postgres-cluster.js';

export interface TestPostgres {
  /** false when PostgreSQL is here; else why the tests skip (pass as `{ skip: pg.skip }`). */
  readonly skip: false | string;
  /** A new empty database on the server, dropped at `t`'s teardown; its URL. */
  database(t: Test, options?: DatabaseOptions): Promise<string>;
}

export interface DatabaseOptions {
  /**
   * Collate text by this ICU locale (e.g. `en-US`, as most production clusters do through their libc locale) instead
   * of the test cluster's byte-order C.UTF-8: a query that sorts text without saying how then sorts differently.
   */
  icuLocale?: string;
}

/** With the URL's database name replaced. */
function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * Call once per test file, at the top: starts (or reaches) the server and stops it at the file's teardown.
 * SWITCHYARD_TEST_DATABASE_URL names a running server whose role may CREATE DATABASE; without it a cluster is
 * started from Debian's binaries (SWITCHYARD_TEST_PG_BIN: another bin dir; a missing one simulates their absence).
 */
export async function usePostgres(t: Test): Promise<TestPostgres> {
  const skipped = (reason: string): TestPostgres => ({
    skip: `PostgreSQL tests skipped: ${reason}`,
    database: () => Promise.reject(new Error('PostgreSQL is not available')),
  });
  let adminUrl = process.env.SWITCHYARD_TEST_DATABASE_URL;
  let stopCluster = () => {};
  if (!adminUrl) {
    const binDir = postgresBinDir();
    if (binDir === null) {
      const where = process.env.SWITCHYARD_TEST_PG_BIN === undefined ? '/usr/lib/postgresql/*/bin' : `SWITCHYARD_TEST_PG_BIN=${process.env.SWITCHYARD_TEST_PG_BIN}`;
      return skipped(`no SWITCHYARD_TEST_DATABASE_URL and no initdb in ${where} (apt-get install postgresql-15)`);
    }
    const cluster = await startCluster(binDir);
    if (typeof cluster === 'string') return skipped(cluster);
    stopCluster = cluster.stop;
    adminUrl = cluster.adminUrl;
  }
  const admin = new pg.Client({ connectionString: adminUrl, application_name: 'switchyard-tests' });
  try {
    await admin.connect();
  } catch (error) {
    stopCluster();
    // A server that was given or started but cannot be reached is a broken setup, not an absent one: fail loudly.
    throw new Error(`test PostgreSQL at ${new URL(adminUrl).host} is unreachable: ${(error as Error).message}`);
  }
  const created = new Set<string>();
  const drop = async (name: string) => {
    if (!created.delete(name)) return;
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
  // One teardown in a fixed order (databases, then the admin connection, then the server): tap runs a test's
  // teardowns in the order they were added, and a database added later would otherwise outlive its server.
  t.teardown(async () => {
    for (const name of [...created]) await drop(name);
    await admin.end();
    stopCluster();
  });
  return {
    skip: false,
    async database(sub: Test, options: DatabaseOptions = {}) {
      const name = `switchyard_test_${randomBytes(6).toString('hex')}`;
      const icu = options.icuLocale === undefined ? '' : ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${options.icuLocale.replaceAll("'", "''")}'`;
      await admin.query(`CREATE DATABASE ${name}${icu}`);
      created.add(name);
      if (sub !== t) sub.teardown(() => drop(name));
      return withDatabase(adminUrl, name);
    },
  };
}
