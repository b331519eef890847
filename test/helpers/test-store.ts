// A runtime test's store on the test storage mode: SQLite (in memory or a file) by default, a fresh PostgreSQL database under SWITCHYARD_TEST_STORAGE=postgres.
import pino from 'pino';
import { openStorageDriver, type StorageDriver } from '../../http/storage-driver.js';
import { systemClock } from '../../runtime/clock.js';
import { DEFAULT_CONFIG } from '../../runtime/config.js';
import type { Storage } from '../../storage/port/storage.js';
import { sqlReader, type SqlReader } from './sql.js';
import { testDatabase } from './test-database.js';

export interface TestStore {
  readonly engine: StorageDriver['engine'];
  /** The port the runtime takes: await every repository call, as the runtime does. */
  readonly store: Storage;
  /** Rows no repository function exposes, with portable SQL (test/helpers/sql.ts). */
  readonly sql: SqlReader;
  /** The driver (its `sqlite` store for what only SQLite has, behind `sqliteOnly`). */
  readonly driver: StorageDriver;
  /** Commits what is queued and releases the database (idempotent; also done at teardown, which drops it). */
  close(): Promise<void>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

/**
 * Opens `path` (default ':memory:') the way the service would: on PostgreSQL the same path names the same database
 * (as the same file does on SQLite), so opening it again after `close` is what a restarted process sees. A PostgreSQL
 * database is dropped at teardown, once the last store on it is done.
 */
export async function openTestStore(t: Teardown, options: { path?: string } = {}): Promise<TestStore> {
  const path = options.path ?? ':memory:';
  const database = await testDatabase(path);
  const config = { ...DEFAULT_CONFIG, dbPath: path, databaseUrl: database?.url ?? null, pgPoolSize: 4 };
  const driver = await openStorageDriver(config, pino({ level: 'silent' }), systemClock);
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= driver.close());
  // Dropped at teardown only, so a test can close and open the same path again and find its data.
  t.teardown(async () => {
    await close();
    await database?.drop();
  });
  return { engine: driver.engine, store: driver.storage, sql: sqlReader({ driver, store: driver.storage }), driver, close };
}
