// Measurement prototype, not service code: a group-commit writer — every unit submitted during one loop turn commits in one FULL transaction.
import type Database from 'better-sqlite3';
import { writeWithRetry, type BusyStats } from './split-db.js';

interface Unit {
  write: () => void;
  committed: () => void;
}

export interface GroupCommit {
  /** Queues `write`; `committed` runs once its transaction is durable (the service answers a 202 only then). */
  submit(write: () => void, committed: () => void): void;
  /** Submits `write` and resolves after its commit. */
  unit(write: () => void): Promise<void>;
  readonly busy: BusyStats;
  readonly stats: { commits: number; units: number; commitMs: number };
}

/** 512 units per transaction at most, as runtime's writer: a longer batch blocks the loop for tens of milliseconds. */
export function createGroupCommit(db: Database.Database, maxBatch = 512): GroupCommit {
  let queue: Unit[] = [];
  let scheduled = false;
  const busy: BusyStats = { retries: 0, waitMs: 0 };
  const stats = { commits: 0, units: 0, commitMs: 0 };

  function flush(): void {
    scheduled = false;
    const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
    if (batch === queue) queue = [];
    if (queue.length > 0) schedule();
    const started = performance.now();
    writeWithRetry(db, busy, () => {
      for (const unit of batch) unit.write();
    });
    stats.commitMs += performance.now() - started;
    stats.commits += 1;
    stats.units += batch.length;
    for (const unit of batch) unit.committed();
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  }

  return {
    submit(write, committed) {
      queue.push({ write, committed });
      schedule();
    },
    unit(write) {
      return new Promise<void>((resolve) => {
        queue.push({ write, committed: resolve });
        schedule();
      });
    },
    busy,
    stats,
  };
}
