// The PostgreSQL driver behind the storage port: one pool, the schema migrated, repositories and the unit writer.
/*
 * What `openStore` is for SQLite: the composition root opens it from SWITCHYARD_DATABASE_URL and hands the runtime
 * the `Storage` port. Reads outside a unit autocommit on the pool; a unit's `tx.repos` are bound to its batch's client.
 */
import type { Storage } from '../port/storage.js';
import type { PortRepositories } from '../port/storage.js';
import { connectPostgres, type PostgresOptions, type PostgresPool } from './connection.js';
import { migratePostgres } from './migrate.js';
import { listenForSessionSignals } from './session-notify.js';
import { createPostgresRepositories } from './repos/index.js';
import { createPostgresUnitWriter, type PostgresUnitWriterOptions, type PostgresUnitWriterStats } from './unit-of-work.js';
import type { UnitWriter } from '../port/unit.js';
import type { SessionSignals } from '../port/session-signals.js';

export interface PostgresStorageOptions extends PostgresOptions {
  /** Batching of units (storage/postgres/unit-of-work.ts); the defaults are the measured ones. */
  writer?: Omit<PostgresUnitWriterOptions<PortRepositories>, 'pool' | 'bindRepos'>;
}

export interface PostgresStorage extends Storage {
  readonly writer: UnitWriter<PortRepositories> & { readonly stats: PostgresUnitWriterStats };
  readonly pool: PostgresPool;
  readonly signals: SessionSignals;
  /** Commits what is queued, then closes the pool. */
  close(): Promise<void>;
}

/**
 * Reads are not memoized on PostgreSQL: another node may write any table, and nothing tells this one yet
 * (cross-node invalidation is future work), so a cached answer could outlive a revoked key. Every read goes to the
 * server; SQLite keeps its cache (storage/read-cache.ts).
 */
const uncached: Storage['cache'] = {
  cached: (read) => read,
  generation: () => 0,
};

/** Connects (PostgresUnreachableError without the password when it cannot), migrates, and returns the port. */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  const pool = await connectPostgres(options);
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  const repos = createPostgresRepositories(pool);
  const writer = createPostgresUnitWriter<PortRepositories>({ ...options.writer, pool, bindRepos: createPostgresRepositories });
  let closed: Promise<void> | undefined;
  return {
    pool,
    repos,
    writer,
    cache: uncached,
    // One LISTEN connection per listen() (a node calls it once, from its event bus); the pool is not used for it.
    signals: {
      listen: (handlers) =>
        listenForSessionSignals({ url: options.url, applicationName: options.applicationName, connectTimeoutMs: options.connectTimeoutMs, ...handlers }),
    },
    close: () =>
      (closed ??= (async () => {
        await writer.flush();
        await pool.end();
      })()),
  };
}
