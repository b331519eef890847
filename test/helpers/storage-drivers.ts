// One storage contract, both drivers: each test runs on a fresh SQLite store and a fresh PostgreSQL database, as AsyncRepositories.
import type { Test } from 'tap';
import type { AsyncRepo, AsyncRepositories } from '../../storage/port/repos.js';
import { connectPostgres } from '../../storage/postgres/connection.js';
import { migratePostgres } from '../../storage/postgres/migrate.js';
import { createPostgresRepositories } from '../../storage/postgres/repos/index.js';
import { openStore } from '../../storage/store.js';
import { usePostgres } from './postgres.js';

export type DriverName = 'sqlite' | 'postgres';

export interface DriverUnderTest {
  readonly driver: DriverName;
  readonly repos: AsyncRepositories;
  /**
   * Runs literal SQL that both engines accept (no parameters), for rows of tables whose repositories are not ported
   * yet (sessions, executions, triggers…). Booleans as `true`/`false` literals, JSON as text literals.
   */
  exec(sql: string): Promise<void>;
  /** Rows of a literal query both engines accept, as the driver returns them (SQLite's JSON as text, PostgreSQL's parsed). */
  select(sql: string): Promise<Array<Record<string, unknown>>>;
  /** A blob literal for `exec` (X'…' on SQLite, a '\x…' bytea literal on PostgreSQL). */
  blob(hex: string): string;
}

export interface StorageDriver {
  readonly name: DriverName;
  /** false, or why this driver's tests skip (no PostgreSQL here). */
  readonly skip: false | string;
  /** A fresh, migrated database for `t`, closed and dropped at its teardown. */
  open(t: Test): Promise<DriverUnderTest>;
}

/**
 * The port's view of a synchronous repository: every function's result (or throw) as a promise. The SQLite driver
 * needs nothing else to satisfy AsyncRepo, since its calls complete before they return.
 */
export function promised<R extends object>(repo: R): AsyncRepo<R> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(repo)) {
    if (typeof fn === 'function') wrapped[name] = async (...args: unknown[]) => (fn as (...a: unknown[]) => unknown)(...args);
  }
  return wrapped as AsyncRepo<R>;
}

function sqliteDriver(): StorageDriver {
  return {
    name: 'sqlite',
    skip: false,
    async open(t) {
      const store = openStore({ path: ':memory:' });
      t.teardown(() => store.close());
      const r = store.repos;
      const repos: AsyncRepositories = {
        tenancy: promised(r.tenancy),
        serviceKeys: promised(r.serviceKeys),
        entitlements: promised(r.entitlements),
        supportGrants: promised(r.supportGrants),
        provisioning: promised(r.provisioning),
        partners: promised(r.partners),
        leases: promised(r.leases),
        workers: promised(r.workers),
        eventDeliveries: promised(r.eventDeliveries),
        management: promised(r.management),
        gauges: promised(r.gauges),
        operations: promised(r.operations),
        triggerRuns: promised(r.triggerRuns),
        fireClaims: promised(r.fireClaims),
        triggers: promised(r.triggers),
        automations: promised(r.automations),
        timers: promised(r.timers),
        credentials: promised(r.credentials),
        webhooks: promised(r.webhooks),
        integrations: promised(r.integrations),
        knowledge: promised(r.knowledge),
        sessions: promised(r.sessions),
        sessionList: promised(r.sessionList),
        executions: promised(r.executions),
        sessionEvents: promised(r.sessionEvents),
        snapshots: promised(r.snapshots),
        approvals: promised(r.approvals),
      };
      const select = async (sql: string) => store.db.prepare(sql).all() as Array<Record<string, unknown>>;
      return { driver: 'sqlite', repos, exec: async (sql) => void store.db.exec(sql), select, blob: (hex) => `X'${hex}'` };
    },
  };
}

/**
 * Call once per test file, at the top (it starts the file's PostgreSQL cluster). PostgreSQL databases collate text
 * as `en-US` (ICU), like a typical production cluster, so a query that leaves its sort order to the database's
 * collation is caught disagreeing with SQLite's byte order.
 */
export async function useStorageDrivers(t: Test): Promise<StorageDriver[]> {
  const pg = await usePostgres(t);
  const postgres: StorageDriver = {
    name: 'postgres',
    skip: pg.skip,
    async open(sub) {
      const pool = await connectPostgres({ url: await pg.database(sub, { icuLocale: 'en-US' }), applicationName: 'switchyard-contract' });
      sub.teardown(() => pool.end());
      await migratePostgres(pool);
      return {
        driver: 'postgres',
        repos: createPostgresRepositories(pool),
        exec: async (sql) => void (await pool.query(sql)),
        select: async (sql) => (await pool.query(sql)).rows as Array<Record<string, unknown>>,
        blob: (hex) => `'\\x${hex}'::bytea`,
      };
    },
  };
  return [sqliteDriver(), postgres];
}

/** Registers `name` once per driver (`name [sqlite]`, `name [postgres]`), each on a fresh database. */
export function contract(t: Test, drivers: readonly StorageDriver[], name: string, body: (t: Test, db: DriverUnderTest) => Promise<void>): void {
  for (const driver of drivers) {
    t.test(`${name} [${driver.name}]`, { skip: driver.skip }, async (t) => body(t, await driver.open(t)));
  }
}
