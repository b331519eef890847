// Group-commit writer: every unit of work submitted in one event-loop turn shares one transaction; each unit's outbox runs after it.
import type { SqliteDatabase } from './database.js';
import { journalOf } from './tx-journal.js';

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
  /**
   * The unit of work's outbox: called while a unit runs, `publish` runs once that unit's transaction has committed
   * (units in commit order, each unit's calls in order), before its caller resumes; never if the unit rolls back.
   * Post-commit notifications (session events to SSE and observers) go here, never by hand after `submit`.
   */
  afterCommit(publish: () => void): void;
  readonly stats: GroupCommitStats;
}

/**
 * Units run in submission order, each inside its own savepoint (unless submitted without one), so one failing
 * unit rolls back only itself and rejects only its own caller. A request is answered after its commit: a 202
 * means durable.
 */
export interface GroupCommitOptions {
  maxBatch?: number;
  /** An outbox callback threw (the commit stands; the unit's caller still gets its value). */
  onPublishError?: (error: unknown) => void;
}

type Outcome = { ok: boolean; value: unknown; outbox: Array<() => void> };

export function createGroupCommitWriter(db: SqliteDatabase, options: GroupCommitOptions = {}): GroupCommitWriter {
  // A batch blocks the loop while it runs (PERF-NOTES: ~290 units took 18-35 ms): a bounded batch per turn of the
  // loop, the rest in the next, so HTTP is served between them.
  const maxBatch = options.maxBatch ?? 512;
  let queue: Pending[] = [];
  let scheduled = false;
  const stats: GroupCommitStats = { batches: 0, units: 0, seconds: 0, samples: [] };
  const onPublishError = options.onPublishError ?? ((error: unknown) => process.emitWarning(`group-commit outbox callback failed: ${String(error)}`));
  /** The outbox of the unit running now; null between units. */
  let outbox: Array<() => void> | null = null;

  // In-memory state the units cached (event seqs) is rolled back with the unit or batch that wrote it.
  const journal = journalOf(db);
  /** Runs one unit with its outbox open; what it queued is kept only if it returns. */
  const withOutbox = <T>(mine: Array<() => void>, work: () => T): T => {
    outbox = mine;
    try {
      return work();
    } finally {
      outbox = null;
    }
  };
  /** One unit in its own savepoint: a failure rolls back only this unit, and what it meant to publish never happens. */
  const attempt = (unit: Pending): Outcome => {
    const mine: Array<() => void> = [];
    try {
      return { ok: true, value: journal.frame(db.transaction(() => withOutbox(mine, unit.work))), outbox: mine };
    } catch (error) {
      return { ok: false, value: error, outbox: [] };
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
      const outboxes = group.map((): Array<() => void> => []);
      try {
        const values = journal.frame(db.transaction(() => group.map((unit, k) => withOutbox(outboxes[k]!, unit.work))));
        values.forEach((value, k) => outcomes.push({ ok: true, value, outbox: outboxes[k]! }));
      } catch {
        for (const unit of group) outcomes.push(attempt(unit));
      }
      i = end;
    }
    return outcomes;
  });

  function publishCommitted(outcomes: readonly Outcome[]): void {
    for (const outcome of outcomes) {
      for (const publish of outcome.outbox) {
        try {
          publish();
        } catch (error) {
          onPublishError(error);
        }
      }
    }
  }

  /** Commits queued units: one batch per event-loop turn when scheduled, everything when `all` (shutdown). */
  function commit(all: boolean): void {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
      if (batch === queue) queue = [];
      let outcomes: Outcome[];
      const started = performance.now();
      try {
        outcomes = journal.frame(() => runBatch.immediate(batch));
      } catch (error) {
        for (const unit of batch) unit.reject(error);
        continue;
      }
      const seconds = (performance.now() - started) / 1000;
      stats.batches += 1;
      stats.units += batch.length;
      stats.seconds += seconds;
      if (stats.samples.length < SAMPLE_LIMIT) stats.samples.push([batch.length, seconds]);
      publishCommitted(outcomes);
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
    afterCommit(publish) {
      if (outbox === null) throw new Error('afterCommit is only valid inside a unit of work run by the group-commit writer.');
      outbox.push(publish);
    },
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
