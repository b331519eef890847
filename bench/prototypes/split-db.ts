// Measurement prototype, not service code: opens one connection to the prototype's database (real schema, service pragmas) and counts SQLITE_BUSY.
import Database from 'better-sqlite3';
import { migrate } from '../../storage/migrate.js';

/** Fixed ids of the seeded organization: both threads open the same file and need the same rows. */
export const SEED = {
  org: '00000000-0000-4000-8000-000000000001',
  domain: '00000000-0000-4000-8000-000000000002',
  agent: '00000000-0000-4000-8000-000000000003',
  flow: '00000000-0000-4000-8000-000000000004',
  trigger: '00000000-0000-4000-8000-000000000005',
} as const;

/** SQLITE_BUSY seen by one connection: each retry, and the milliseconds spent waiting for the writer lock. */
export interface BusyStats {
  retries: number;
  waitMs: number;
}

/**
 * `timeout: 0` turns off SQLite's own busy handler, so a second writer's BEGIN IMMEDIATE fails at once with
 * SQLITE_BUSY instead of sleeping invisibly inside the call: `writeWithRetry` then counts each wait.
 */
export function openDatabase(file: string, synchronous: 'FULL' | 'NORMAL' = 'FULL'): Database.Database {
  const db = new Database(file, { timeout: 0 });
  db.pragma('journal_mode = WAL');
  // FULL is the service's setting; NORMAL (no fsync per WAL commit) stands in for a disk whose fsync is nearly free.
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = ON');
  db.pragma('temp_store = MEMORY');
  db.pragma('wal_autocheckpoint = 4000');
  return db;
}

/** Creates the schema and the organization, agent, flow and API trigger every fire targets. */
export function prepareDatabase(file: string): void {
  const db = openDatabase(file);
  migrate(db);
  const t = Date.now();
  db.prepare("INSERT INTO organizations (id, name, created_at) VALUES (?, 'Split', ?)").run(SEED.org, t);
  db.prepare("INSERT INTO domains (id, org_id, name, created_at) VALUES (?, ?, 'Sales', ?)").run(SEED.domain, SEED.org, t);
  const automation = db.prepare('INSERT INTO automations (id, org_id, domain_id, kind, name, published_revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)');
  automation.run(SEED.agent, SEED.org, SEED.domain, 'agent', 'Contact lookup', t, t);
  automation.run(SEED.flow, SEED.org, SEED.domain, 'flow', 'Enrich contact', t, t);
  db.prepare("INSERT INTO triggers (id, org_id, domain_id, type, name, created_at) VALUES (?, ?, ?, 'api', 'New lead', ?)").run(SEED.trigger, SEED.org, SEED.domain, t);
  db.close();
}

const SPIN = new Int32Array(new SharedArrayBuffer(4));
const BUSY_SLEEP_MS = 0.05;
const BUSY_GIVE_UP_MS = 10_000;

/** Runs `write` as one BEGIN IMMEDIATE transaction, sleeping 50 µs between tries while the other connection writes. */
export function writeWithRetry<T>(db: Database.Database, busy: BusyStats, write: () => T): T {
  const transaction = db.transaction(write);
  const started = performance.now();
  for (;;) {
    try {
      return transaction.immediate();
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      const waited = performance.now() - started;
      if (waited > BUSY_GIVE_UP_MS) throw error;
      busy.retries += 1;
      const before = performance.now();
      Atomics.wait(SPIN, 0, 0, BUSY_SLEEP_MS);
      busy.waitMs += performance.now() - before;
    }
  }
}
