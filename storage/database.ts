// Opens the SQLite database with the pragmas every Switchyard process relies on.
import Database from 'better-sqlite3';

export type Durability = 'full' | 'normal';

export interface OpenOptions {
  /** `synchronous=FULL` (default) survives power loss; `NORMAL` may lose the last commits on power loss. */
  durability?: Durability;
  readonly?: boolean;
}

export type SqliteDatabase = Database.Database;

/** How long a statement waits for another connection's write lock before SQLITE_BUSY (the group-commit writer may lower it per batch). */
export const BUSY_TIMEOUT_MS = 5000;

export function openDatabase(path: string, options: OpenOptions = {}): SqliteDatabase {
  const db = new Database(path, { readonly: options.readonly ?? false });
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Sorts and temporary b-trees of the hot queries stay off the disk (issue 12: measured 64-72 µs vs 100-118 µs per fire).
  db.pragma('temp_store = MEMORY');
  // Deleted caller credentials must not be recoverable from free pages of the file.
  db.pragma('secure_delete = ON');
  // Checkpoints are the p99 spikes of the write path (PERF-NOTES): the automatic one runs every 4,000 pages (about
  // 16 MB of WAL) instead of 1,000, and shutdown truncates the WAL (store.close).
  db.pragma('wal_autocheckpoint = 4000');
  return db;
}
