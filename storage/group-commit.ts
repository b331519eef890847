// Group-commit writer: every unit of work submitted in one event-loop turn shares one transaction; each unit's outbox runs after it.
import type { SqliteDatabase } from './database.js';
import { journalOf } from './tx-journal.js';

export type UnitOfWork<T> = () => T;

interface Pending {
  work: UnitOfWork<unknown>;
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
  submit<T>(work: UnitOfWork<T>): Promise<T>;
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
 * Units run in submission order, each inside its own savepoint, so one failing unit rolls back only
 * itself and rejects only its own caller. A request is answered after its commit: a 202 means durable.
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
  const runBatch = db.transaction((batch: Pending[]) => {
    const outcomes: Outcome[] = [];
    for (const unit of batch) {
      const mine: Array<() => void> = [];
      outbox = mine;
      try {
        outcomes.push({ ok: true, value: journal.frame(db.transaction(unit.work)), outbox: mine });
      } catch (error) {
        // Rolled back to its savepoint: what it meant to publish never happened.
        outcomes.push({ ok: false, value: error, outbox: [] });
      } finally {
        outbox = null;
      }
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
    submit<T>(work: UnitOfWork<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(scheduledCommit);
        }
      });
    },
  };
}
