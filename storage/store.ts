// The storage facade the runtime sees: migrated database, repositories, group-commit writer.
import { openDatabase, type Durability, type SqliteDatabase } from './database.js';
import { createGroupCommitWriter, type GroupCommitWriter } from './group-commit.js';
import { migrate } from './migrate.js';
import { createReadCache, type ReadCache } from './read-cache.js';
import { createRepositories, type Repositories } from './repos/index.js';
import { journalOf } from './tx-journal.js';

export interface StoreOptions {
  /** A file path, or ':memory:'. */
  path: string;
  durability?: Durability;
  /**
   * Another connection of this process writes the same file (SWITCHYARD_EXECUTION=thread): the writer retries a
   * batch refused the write lock on a timer instead of blocking the event loop in SQLite's busy handler.
   */
  sharedFile?: boolean;
}

export interface Store {
  readonly path: string;
  readonly repos: Repositories;
  /** Memoizes a read until the next write to a table it may depend on (storage/read-cache.ts). */
  readonly cache: Pick<ReadCache, 'cached' | 'generation' | 'invalidate' | 'onCommittedWrite'>;
  /** Commits units of work in batches; a port unit gets `tx.repos` = `repos` (same connection). */
  readonly writer: GroupCommitWriter<Repositories>;
  /** Runs `work` synchronously in one transaction now (bootstrap paths, not request paths). */
  transaction<T>(work: () => T): T;
  integrityCheck(): string;
  /** Folds the WAL back into the database file without blocking writers. */
  checkpoint(): void;
  close(): void;
  /** The raw handle, for storage-internal modules and tests of storage itself. */
  readonly db: SqliteDatabase;
}

export function openStore(options: StoreOptions): Store {
  const raw = openDatabase(options.path, { durability: options.durability });
  migrate(raw);
  // Everything above storage prepares through the watched handle, so any write to a cached table invalidates.
  const cache = createReadCache(raw);
  const db = cache.db;
  const repos = createRepositories(raw, cache);
  const writer = createGroupCommitWriter<Repositories>(db, { repos, sharedFile: options.sharedFile });
  let closed = false;
  return {
    path: options.path,
    db,
    repos,
    cache,
    writer,
    transaction: (work) => journalOf(db).frame(() => db.transaction(work).immediate()),
    integrityCheck: () => db.pragma('integrity_check', { simple: true }) as string,
    checkpoint: () => {
      if (options.path !== ':memory:') db.pragma('wal_checkpoint(PASSIVE)');
    },
    close() {
      if (closed) return;
      closed = true;
      const shut = (): void => {
        if (options.path !== ':memory:') db.pragma('wal_checkpoint(TRUNCATE)');
        db.close();
      };
      // An async unit still running keeps its transaction open: the handle closes once its batch has committed.
      const flushed = writer.flush();
      if (flushed === undefined) shut();
      else void flushed.then(shut, shut);
    },
  };
}
