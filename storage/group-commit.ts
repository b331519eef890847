// Group-commit writer: every unit of work submitted in one event-loop turn shares one transaction (sync or async units, the port's UnitWriter); each unit's outbox runs after it.
import type { SqliteDatabase } from './database.js';
import { createBatchRunner, WriteLockBusyError, type BatchUnit, type Outcome } from './group-commit-batch.js';
import { isThenable } from './maybe-async.js';
import type { Unit, UnitSubmitOptions, UnitWriter, UnitWriterStats } from './port/unit.js';
import type { UnitSpannedLoopTurnError } from './port/unit-errors.js';

/** A synchronous unit that reaches its repositories itself (the callers written before the storage port). */
export type UnitOfWork<T> = () => T;

export interface SubmitOptions extends UnitSubmitOptions {
  /**
   * False for a unit whose checks all run before its first write (accepts validated up front, the materializer):
   * consecutive such units share one savepoint instead of one each. Should one throw anyway, their savepoint is
   * rolled back and they run again one savepoint each, so a failing unit still rolls back only itself: such a unit
   * must be safe to run a second time.
   */
  savepoint?: boolean;
}

interface Pending extends BatchUnit {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitStats extends UnitWriterStats {
  /** Seconds spent running batch transactions, commit (and fsync) included. */
  seconds: number;
  /** Units refused because they were still pending on the next loop turn (they awaited I/O inside the transaction). */
  spannedTurns: number;
  /** [units, seconds] of recent batches, for a metrics scrape to drain; stops growing at SAMPLE_LIMIT. */
  samples: Array<[number, number]>;
  /** Batches put back because another connection held the write lock (only with `sharedFile`). */
  busyRetries: number;
}

/**
 * With a second writing connection: first wait before retrying a batch refused the write lock, doubling, capped.
 * The other side holds the lock for one batch (at most ~5 ms of units, then its COMMIT), so a short cap retries soon
 * after it lets go; a refused BEGIN costs microseconds. A 50 ms cap left accepts waiting long after the lock was free
 * (thread mode, keyed fires: p99 120-134 ms against 41-52 ms at 2 ms; docs/decisions.md "Lock retries of two writers").
 */
const BUSY_RETRY_FIRST_MS = 1;
const BUSY_RETRY_MAX_MS = 2;
/** A batch refused the lock this long in a row fails (its callers get the error), as busy_timeout would have. */
const BUSY_GIVE_UP_MS = 5000;

const SAMPLE_LIMIT = 10_000;
/**
 * A batch holds the event loop from its first unit to its COMMIT: under load a 512-unit cap still meant 15-85 ms
 * (bench sustained, issue 12), so a batch also stops at 5 ms of units; COMMIT and its fsync come on top.
 */
const DEFAULT_MAX_BATCH_MS = 5;

/** Releases work in slices of the event loop (runtime/execution/pacer.ts; structural, storage imports no runtime). */
export interface Pacer {
  /** Runs `work` later, in FIFO order with the execution side's other waiting work, one at a time. */
  run(work: () => void): void;
  /** Registers the work that opens each of the pacer's slices (here: one batch, within the budget it is given). */
  openSlicesWith(first: (budgetMs: number) => void | PromiseLike<void>): void;
  /** Asks for a slice on the next loop turn. */
  wake(): void;
}

export interface GroupCommitWriter<R = unknown> extends UnitWriter<R> {
  /**
   * Runs `work` inside the next batch transaction; resolves only after that transaction commits. `work` is a plain
   * `() => T` or a port unit `(tx) => T | Promise<T>`; an async one must settle within microtasks (no real I/O).
   */
  submit<T>(work: Unit<R, T>, options?: SubmitOptions): Promise<T>;
  /**
   * Commits whatever is queued now (used at shutdown): synchronous, unless a batch is running an async unit or
   * one of the queued units is async; then a promise that settles once all of it committed.
   */
  flush(): void | Promise<void>;
  /**
   * The unit of work's outbox: called while a unit runs, `publish` runs once that unit's transaction has committed
   * (units in commit order, each unit's calls in order), before its caller resumes; never if the unit rolls back.
   * Post-commit notifications (session events to SSE and observers) go here, never by hand after `submit`.
   */
  afterCommit(publish: () => void): void;
  /** From now on batches commit in `pacer`'s turns (opening its slice), and callers resume through it one at a time. */
  paceWith(pacer: Pacer): void;
  readonly stats: GroupCommitStats;
}

/**
 * Units run in submission order, each inside its own savepoint (unless submitted without one), so one failing
 * unit rolls back only itself and rejects only its own caller. A request is answered after its commit: a 202
 * means durable.
 */
export interface GroupCommitOptions<R = unknown> {
  /** Handed to every unit as `tx.repos` (the store's repositories on this connection). */
  repos?: R;
  /** A unit awaited I/O across a loop turn (default: a process warning); the unit is refused either way. */
  onSpannedTurn?: (error: UnitSpannedLoopTurnError) => void;
  maxBatch?: number;
  /** Stop adding units to a batch once it has run this long (ms, before its COMMIT); the rest go in the next. */
  maxBatchMs?: number;
  /** An outbox callback threw (the commit stands; the unit's caller still gets its value). */
  onPublishError?: (error: unknown) => void;
  /**
   * Another connection (the execution worker thread) writes the same file: a batch that finds the write lock held is
   * retried after a short timer instead of waiting in SQLite's busy handler, which would block this event loop.
   */
  sharedFile?: boolean;
}

export function createGroupCommitWriter<R = unknown>(db: SqliteDatabase, options: GroupCommitOptions<R> = {}): GroupCommitWriter<R> {
  // A batch blocks the loop while it runs (PERF-NOTES: ~290 units took 18-35 ms): a batch bounded in units and in
  // time per turn of the loop, the rest in the next, so HTTP is served between them.
  const maxBatch = options.maxBatch ?? 512;
  const maxBatchMs = options.maxBatchMs ?? DEFAULT_MAX_BATCH_MS;
  let pacer: Pacer | null = null;
  let queue: Pending[] = [];
  let scheduled = false;
  /** The batch running async units, until it committed: no other batch starts meanwhile (one connection). */
  let inFlight: Promise<void> | null = null;
  const stats: GroupCommitStats = { batches: 0, units: 0, seconds: 0, spannedTurns: 0, samples: [], busyRetries: 0 };
  /** While a batch is refused the write lock: when the refusals began and the next wait; null when not waiting. */
  let busy: { since: number; delayMs: number } | null = null;
  const onPublishError = options.onPublishError ?? ((error: unknown) => process.emitWarning(`group-commit outbox callback failed: ${String(error)}`));
  const onSpannedTurn = options.onSpannedTurn ?? ((error) => process.emitWarning(error.message, 'UnitSpannedLoopTurn'));
  const runner = createBatchRunner(db, {
    repos: options.repos,
    beginWithoutWaiting: options.sharedFile === true,
    onSpannedTurn: (error) => {
      stats.spannedTurns += 1;
      onSpannedTurn(error);
    },
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

  const resume = (unit: Pending, outcome: Outcome): void => (outcome.ok ? unit.resolve(outcome.value) : unit.reject(outcome.value));
  /**
   * Resumes the callers of committed units. With a pacer, one at a time through it: each caller's continuation
   * (a 202 written, a turn's next step) runs before the next is resumed, and once the loop turn's slice is used
   * the rest resume after the next I/O poll, so a batch's continuations share the execution side's budget.
   */
  function settle(ran: readonly Pending[], outcomes: readonly Outcome[], all: boolean): void {
    const through = all ? null : pacer;
    ran.forEach((unit, i) => (through === null ? resume(unit, outcomes[i]!) : through.run(() => resume(unit, outcomes[i]!))));
  }

  /** Books a batch that ran (committed, its failed units rolled back): stats, outbox, callers. */
  function finish(batch: Pending[], outcomes: readonly Outcome[], started: number, all: boolean): void {
    // Units the time cap left out go back to the head of the queue, ahead of anything submitted since.
    const ran = outcomes.length < batch.length ? batch.splice(0, outcomes.length) : batch;
    if (ran !== batch) queue = batch.concat(queue);
    const seconds = (performance.now() - started) / 1000;
    stats.batches += 1;
    stats.units += ran.length;
    stats.seconds += seconds;
    if (stats.samples.length < SAMPLE_LIMIT) stats.samples.push([ran.length, seconds]);
    publishCommitted(outcomes);
    settle(ran, outcomes, all);
  }

  /**
   * Commits queued units: one batch per event-loop turn when scheduled, everything when `all` (shutdown). A batch
   * whose units are all synchronous commits before this returns; one with an async unit commits when it settles,
   * and then the writer carries on (the promise returned, for flush).
   */
  function commit(all: boolean, budgetMs = maxBatchMs): void | Promise<void> {
    scheduled = false;
    if (inFlight !== null) return all ? inFlight.then(() => commit(true)) : undefined;
    while (queue.length > 0) {
      const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
      if (batch === queue) queue = [];
      let outcomes: Outcome[] | Promise<Outcome[]>;
      const started = performance.now();
      try {
        outcomes = runner.run(batch, started + budgetMs);
      } catch (error) {
        if (error instanceof WriteLockBusyError && (all ? waitBlocking(batch) : retryLater(batch))) {
          if (all) continue;
          return;
        }
        for (const unit of batch) unit.reject(error);
        continue;
      }
      busy = null;
      if (isThenable(outcomes)) return (inFlight = landed(outcomes, batch, started, all));
      finish(batch, outcomes, started, all);
      if (!all && queue.length > 0) return wakeUp();
    }
  }
  /** The end of a batch that went async: book it, then go on as the synchronous path would have. */
  async function landed(outcomes: Promise<Outcome[]>, batch: Pending[], started: number, all: boolean): Promise<void> {
    try {
      finish(batch, await outcomes, started, all);
    } catch (error) {
      for (const unit of batch) unit.reject(error);
    } finally {
      inFlight = null;
    }
    if (all) return commit(true);
    if (queue.length > 0) wakeUp();
  }
  const scheduledCommit = (): void => void commit(false);
  /** Shutdown's flush must finish now: a refused batch goes back to the head and is tried again after 2 ms, blocking. */
  function waitBlocking(batch: Pending[]): boolean {
    const now = performance.now();
    busy ??= { since: now, delayMs: 2 };
    if (now - busy.since > BUSY_GIVE_UP_MS) {
      busy = null;
      return false;
    }
    stats.busyRetries += 1;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    queue = batch.concat(queue);
    return true;
  }
  /** Puts a batch refused the write lock back at the head of the queue and commits again after a short wait. */
  function retryLater(batch: Pending[]): boolean {
    const now = performance.now();
    busy ??= { since: now, delayMs: BUSY_RETRY_FIRST_MS };
    if (now - busy.since > BUSY_GIVE_UP_MS) {
      busy = null;
      return false;
    }
    stats.busyRetries += 1;
    queue = batch.concat(queue);
    const delay = busy.delayMs;
    busy.delayMs = Math.min(busy.delayMs * 2, BUSY_RETRY_MAX_MS);
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      wakeUp();
    }, delay);
    return true;
  }
  /** The next batch on the next loop turn: the pacer's turn when there is one, else an immediate of its own. */
  function wakeUp(): void {
    if (pacer !== null) return pacer.wake();
    if (scheduled) return;
    scheduled = true;
    setImmediate(scheduledCommit);
  }
  const flush = (): void | Promise<void> => commit(true);

  return {
    stats,
    flush,
    paceWith(next) {
      pacer = next;
      // A batch gone async hands its promise to the pacer, which releases nothing until it committed.
      next.openSlicesWith((budgetMs) => commit(false, budgetMs));
      if (queue.length > 0) next.wake();
    },
    afterCommit(publish) {
      const outbox = runner.outbox();
      if (outbox === null) throw new Error('afterCommit is only valid inside a unit of work run by the group-commit writer.');
      outbox.push(publish);
    },
    submit<T>(work: Unit<R, T>, options?: SubmitOptions): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work: work as BatchUnit['work'], bare: options?.savepoint === false, resolve: resolve as (v: unknown) => void, reject });
        wakeUp();
      });
    },
  };
}
