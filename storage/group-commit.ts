// Group-commit writer: every unit of work submitted in one event-loop turn shares one transaction.
import type { SqliteDatabase } from './database.js';

export type UnitOfWork<T> = () => T;

export interface SubmitOptions {
  /**
   * False for a unit whose checks all run before its first write (accepts validated up front, the materializer):
   * consecutive such units share one savepoint instead of one each. Should one throw anyway, their savepoint is
   * rolled back and they run again one savepoint each, so a failing unit still rolls back only itself: such a unit
   * must be safe to run a second time.
   */
  savepoint?: boolean;
}

interface Pending {
  work: UnitOfWork<unknown>;
  bare: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: boolean; value: unknown };

export interface GroupCommitStats {
  batches: number;
  units: number;
  /** Seconds spent running batch transactions, commit (and fsync) included. */
  seconds: number;
  /** [units, seconds] of recent batches, for a metrics scrape to drain; stops growing at SAMPLE_LIMIT. */
  samples: Array<[number, number]>;
}

const SAMPLE_LIMIT = 10_000;

export interface GroupCommitWriter {
  /** Runs `work` inside the next batch transaction; resolves only after that transaction commits. */
  submit<T>(work: UnitOfWork<T>, options?: SubmitOptions): Promise<T>;
  /** Commits whatever is queued now (used at shutdown). */
  flush(): void;
  readonly stats: GroupCommitStats;
}

/**
 * Units run in submission order, each inside its own savepoint (unless submitted without one), so one failing
 * unit rolls back only itself and rejects only its own caller. A request is answered after its commit: a 202
 * means durable.
 */
export function createGroupCommitWriter(db: SqliteDatabase, options: { maxBatch?: number } = {}): GroupCommitWriter {
  // A batch blocks the loop while it runs (PERF-NOTES: ~290 units took 18-35 ms): a bounded batch per turn of the
  // loop, the rest in the next, so HTTP is served between them.
  const maxBatch = options.maxBatch ?? 512;
  let queue: Pending[] = [];
  let scheduled = false;
  const stats: GroupCommitStats = { batches: 0, units: 0, seconds: 0, samples: [] };

  const attempt = (unit: Pending): Outcome => {
    try {
      return { ok: true, value: db.transaction(unit.work)() };
    } catch (error) {
      return { ok: false, value: error };
    }
  };
  // A run of consecutive units without savepoints shares one; if any of them throws, that savepoint is rolled back
  // and they run again one savepoint each, so only the failing one is lost (they must be safe to run again).
  const runBatch = db.transaction((batch: Pending[]) => {
    const outcomes: Outcome[] = [];
    let i = 0;
    while (i < batch.length) {
      if (!batch[i].bare) {
        outcomes.push(attempt(batch[i]));
        i += 1;
        continue;
      }
      let end = i;
      while (end < batch.length && batch[end].bare) end += 1;
      const group = batch.slice(i, end);
      try {
        for (const value of db.transaction(() => group.map((unit) => unit.work()))()) outcomes.push({ ok: true, value });
      } catch {
        for (const unit of group) outcomes.push(attempt(unit));
      }
      i = end;
    }
    return outcomes;
  });

  /** Commits queued units: one batch per event-loop turn when scheduled, everything when `all` (shutdown). */
  function commit(all: boolean): void {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
      if (batch === queue) queue = [];
      let outcomes: Outcome[];
      const started = performance.now();
      try {
        outcomes = runBatch.immediate(batch);
      } catch (error) {
        for (const unit of batch) unit.reject(error);
        continue;
      }
      const seconds = (performance.now() - started) / 1000;
      stats.batches += 1;
      stats.units += batch.length;
      stats.seconds += seconds;
      if (stats.samples.length < SAMPLE_LIMIT) stats.samples.push([batch.length, seconds]);
      batch.forEach((unit, i) => (outcomes[i].ok ? unit.resolve(outcomes[i].value) : unit.reject(outcomes[i].value)));
      if (!all && queue.length > 0) {
        scheduled = true;
        setImmediate(scheduledCommit);
        return;
      }
    }
  }
  const scheduledCommit = (): void => commit(false);
  const flush = (): void => commit(true);

  return {
    stats,
    flush,
    submit<T>(work: UnitOfWork<T>, options?: SubmitOptions): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, bare: options?.savepoint === false, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(scheduledCommit);
        }
      });
    },
  };
}
