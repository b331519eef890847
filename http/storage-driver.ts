// Opens the storage the service runs on — SQLite (default) or PostgreSQL (config.databaseUrl) — behind one interface.
/*
 * The runtime only ever sees the port `Storage`; what a driver needs beyond it (closing, the writer's pacing and
 * samples for /metrics, what to log) is answered here, once per driver, so nothing above says `if (sqlite)`.
 */
import { hostname } from 'node:os';
import type { ServiceConfig } from '../runtime/config.js';
import type { Pacer } from '../runtime/execution/pacer.js';
import type { Logger } from '../runtime/logger.js';
import type { WriterSamples } from '../runtime/telemetry/runtime-gauges.js';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../runtime/clock.js';
import type { SessionOwnership } from '../storage/port/ownership.js';
import type { Storage } from '../storage/port/storage.js';
import { describeTarget } from '../storage/postgres/connection.js';
import { createPostgresSessionOwnership } from '../storage/postgres/session-ownership.js';
import { openPostgresStorage } from '../storage/postgres/storage.js';
import { openStore, type Store } from '../storage/store.js';

export type StorageEngine = 'sqlite' | 'postgres';

export interface StorageDriver {
  readonly engine: StorageEngine;
  readonly storage: Storage;
  /** Where the data lives, for logs and messages: a file path or host:port/database, never a password. */
  readonly target: string;
  /** The SQLite store itself, for what only a file has (tests, bench seeding); null on PostgreSQL. */
  readonly sqlite: Store | null;
  /** Per-batch samples for /metrics (both drivers' writers keep them). */
  readonly writerSamples?: WriterSamples;
  /** Lets the writer commit in the execution pacer's slices, where it can (SQLite commits on this loop). */
  paceWriter?(pacer: Pacer): void;
  /**
   * What the runtime must know of the database's sharing: alone on it (SQLite: one process per file, so timer claims
   * found at boot are a crashed predecessor's), or one node of several (PostgreSQL: sessions' turns owned by lease).
   */
  readonly sharing: { soleScheduler: boolean; ownership?: SessionOwnership };
  /** Commits what is queued and releases the file or the pool. */
  close(): Promise<void>;
}

/** `switchyard-<hostname>-<pid>`: tells each node's connections apart in pg_stat_activity. */
export function defaultApplicationName(): string {
  // PostgreSQL truncates names at 63 bytes: shorten the host name, never the pid that tells processes apart.
  const suffix = `-${process.pid}`;
  return `switchyard-${hostname()}`.slice(0, 63 - suffix.length) + suffix;
}

/** PostgreSQL when a database URL is configured, else the SQLite file (or ':memory:'). */
export async function openStorageDriver(config: ServiceConfig, logger: Logger, clock: Clock): Promise<StorageDriver> {
  if (config.databaseUrl !== null) {
    const url = config.databaseUrl;
    const applicationName = config.pgApplicationName ?? defaultApplicationName();
    const storage = await openPostgresStorage({
      url,
      max: config.pgPoolSize,
      statementTimeoutMs: config.pgStatementTimeoutMs,
      applicationName,
      // Writer batches each hold a connection: leave at least one to reads, or a read would wait for every batch.
      writer: { maxInFlight: Math.min(4, config.pgPoolSize - 1) },
      // The pool already dropped the broken connection and opens a new one on demand: worth a line, not a crash.
      onIdleError: (error) => logger.warn({ err: error.message, db: describeTarget(url) }, 'an idle PostgreSQL connection failed'),
    });
    // Unique per process even when two share an application name: a restarted node must not pass for the old one.
    const node = `${applicationName}-${randomBytes(4).toString('hex')}`;
    const ownership = createPostgresSessionOwnership({ pool: storage.pool, node, now: () => clock.now(), ttlMs: config.pgSessionLeaseMs });
    return {
      engine: 'postgres',
      storage,
      target: describeTarget(url),
      sqlite: null,
      writerSamples: storage.writer.stats,
      sharing: { soleScheduler: false, ownership },
      close: () => storage.close(),
    };
  }
  // With execution in a worker thread, a second connection writes the file: this one's writer never blocks on it.
  const store = openStore({ path: config.dbPath, durability: config.durability, sharedFile: config.execution === 'thread' });
  return {
    engine: 'sqlite',
    storage: store,
    target: config.dbPath,
    sqlite: store,
    writerSamples: store.writer.stats,
    paceWriter: (pacer) => store.writer.paceWith(pacer),
    sharing: { soleScheduler: true },
    async close() {
      store.close();
    },
  };
}
