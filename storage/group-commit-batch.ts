// One group-commit transaction: each unit in its savepoint (or a shared one), each unit's outbox, a time cap; units may be async.
/*
 * The transaction is driven by hand (BEGIN IMMEDIATE, SAVEPOINT, RELEASE, ROLLBACK TO, COMMIT as prepared statements)
 * because better-sqlite3's db.transaction refuses a function that returns a promise. The batch stays synchronous
 * while every unit returns a plain value: no promise and no microtask is added on that path. From the first unit
 * that returns a thenable, the rest of the batch continues when it settles; SQLite repositories are synchronous, so
 * such a unit settles within microtasks and no I/O callback runs while the transaction is open. One that is still
 * pending at the sentinel (setImmediate, the next check phase) awaited real I/O: it is refused (see held()).
 */
import { BUSY_TIMEOUT_MS, type SqliteDatabase } from './database.js';
import type { UnitContext } from './port/unit.js';
import { UnitSpannedLoopTurnError } from './port/unit-errors.js';
import { isThenable, loop } from './maybe-async.js';
import { journalOf, type JournalFrame } from './tx-journal.js';

type Outbox = Array<() => void>;

export interface BatchUnit {
  readonly work: (tx: UnitContext<unknown>) => unknown;
  /** Submitted without a savepoint of its own (its checks all run before its first write). */
  readonly bare: boolean;
}

/** What one unit did: its value or error, and the publications to run once the batch committed. */
export interface Outcome {
  readonly ok: boolean;
  readonly value: unknown;
  readonly outbox: Outbox;
}

export interface BatchRunner {
  /**
   * Runs units of `batch` in order inside one IMMEDIATE transaction and commits it. Units stop being added once
   * `deadline` (performance.now() time) has passed, the first always runs: the outcomes cover a prefix of the batch.
   * Synchronous unless a unit returned a thenable; throws (rejects) when the transaction itself failed.
   */
  run(batch: readonly BatchUnit[], deadline: number): Outcome[] | Promise<Outcome[]>;
  /** The outbox of the unit running now (an async unit's until it settles); null between units. */
  outbox(): Outbox | null;
}

export interface BatchRunnerOptions {
  /** What `tx.repos` is for every unit (the store's repositories on this connection). */
  repos?: unknown;
  /** Told at once when a unit is found pending on the next loop turn (the unit is refused when it settles). */
  onSpannedTurn?: (error: UnitSpannedLoopTurnError) => void;
  /**
   * Another connection writes the same file (execution in a worker thread): BEGIN IMMEDIATE does not wait on the
   * write lock (busy_timeout 0 for that one statement) and throws `WriteLockBusyError` at once, so the writer can retry
   * later instead of blocking its event loop in SQLite's busy handler.
   */
  beginWithoutWaiting?: boolean;
}

/** BEGIN IMMEDIATE found the write lock held by another connection; nothing of the batch ran. */
export class WriteLockBusyError extends Error {
  constructor() {
    super('the database write lock is held by another connection');
    this.name = 'WriteLockBusyError';
  }
}


export function createBatchRunner(db: SqliteDatabase, options: BatchRunnerOptions = {}): BatchRunner {
  let current: Outbox | null = null;
  // In-memory state the units cached (event seqs) is rolled back with the unit or batch that wrote it.
  const journal = journalOf(db);
  const onSpannedTurn = options.onSpannedTurn ?? ((error) => process.emitWarning(error.message, 'UnitSpannedLoopTurn'));
  const sql = {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    savepoint: db.prepare('SAVEPOINT group_commit_unit'),
    release: db.prepare('RELEASE group_commit_unit'),
    rollbackTo: db.prepare('ROLLBACK TO group_commit_unit'),
  };
  // db.pragma, not prepared PRAGMA statements: a prepared `busy_timeout` statement did not reliably apply when rerun.
  const setBusyTimeout = (ms: number): void => void db.pragma(`busy_timeout = ${ms}`);
  const begin = (): void => {
    if (options.beginWithoutWaiting !== true) return void sql.begin.run();
    setBusyTimeout(0);
    try {
      sql.begin.run();
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new WriteLockBusyError();
      throw error;
    } finally {
      setBusyTimeout(BUSY_TIMEOUT_MS);
    }
  };
  const contextFor = (mine: Outbox): UnitContext<unknown> => ({ repos: options.repos, afterCommit: (publish) => void mine.push(publish) });

  /**
   * Waits for an async unit, with the sentinel: pending on the next loop turn means it awaited I/O while holding
   * the write transaction. It is reported at once, still awaited (whatever it writes meanwhile stays inside its
   * savepoint, so nothing escapes the transaction), then rolled back whatever it returned.
   */
  const held = (pending: PromiseLike<unknown>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      let spanned: UnitSpannedLoopTurnError | null = null;
      const sentinel = setImmediate(() => onSpannedTurn((spanned = new UnitSpannedLoopTurnError())));
      const settle = (ok: boolean, value: unknown): void => {
        clearImmediate(sentinel);
        current = null;
        if (spanned !== null) reject(spanned);
        else if (ok) resolve(value);
        else reject(value);
      };
      pending.then((value) => settle(true, value), (error: unknown) => settle(false, error));
    });

  /** Runs one unit with its outbox open: its value, or a promise of it for an async unit (outbox open until it settles). */
  const call = (unit: BatchUnit, mine: Outbox): unknown => {
    current = mine;
    let value: unknown;
    try {
      // A unit declaring no parameter (every caller written before the port) cannot use a context: none is built.
      value = unit.work.length === 0 ? (unit.work as () => unknown)() : unit.work(contextFor(mine));
    } catch (error) {
      current = null;
      throw error;
    }
    if (isThenable(value)) return held(value);
    current = null;
    return value;
  };

  // Frames close before their savepoint's statement runs: should that statement fail, the batch's rollback then
  // undoes the unit's in-memory changes along with the batch frame.
  const rollBackSavepoint = (): void => {
    // A unit that ended the transaction itself (or an I/O error that did) leaves no savepoint: the batch is lost.
    if (!db.inTransaction) throw new Error('the group-commit transaction ended inside a unit of work');
    sql.rollbackTo.run();
    sql.release.run();
  };
  const succeeded = (frame: JournalFrame, value: unknown, mine: Outbox): Outcome => {
    frame.keep();
    sql.release.run();
    return { ok: true, value, outbox: mine };
  };
  const failed = (frame: JournalFrame, error: unknown): Outcome => {
    frame.undo();
    rollBackSavepoint();
    return { ok: false, value: error, outbox: [] };
  };

  /** One unit in its own savepoint: a failure rolls back only this unit, and what it meant to publish never happens. */
  const attempt = (unit: BatchUnit): Outcome | Promise<Outcome> => {
    const mine: Outbox = [];
    sql.savepoint.run();
    const frame = journal.open();
    let value: unknown;
    try {
      value = call(unit, mine);
    } catch (error) {
      return failed(frame, error);
    }
    if (!isThenable(value)) return succeeded(frame, value, mine);
    return (value as Promise<unknown>).then((settled) => succeeded(frame, settled, mine), (error: unknown) => failed(frame, error));
  };

  /** Runs units from `group` one savepoint each, appending their outcomes. */
  const oneByOne = (group: readonly BatchUnit[], outcomes: Outcome[]): void | Promise<void> => {
    let k = 0;
    return loop(() => {
      if (k >= group.length) return false;
      const outcome = attempt(group[k++]!);
      if (!isThenable(outcome)) return outcomes.push(outcome) > 0;
      return outcome.then((settled) => outcomes.push(settled) > 0);
    });
  };

  /**
   * A run of consecutive bare units starting at `from` shares one savepoint, up to the deadline; if any of them
   * throws, that savepoint is rolled back and the units it ran run again one savepoint each, so only the failing
   * one is lost (they must be safe to run again). Returns how many units it took.
   */
  const bareRun = (batch: readonly BatchUnit[], from: number, deadline: number, outcomes: Outcome[]): number | Promise<number> => {
    const group: BatchUnit[] = [];
    const outboxes: Outbox[] = [];
    const values: unknown[] = [];
    sql.savepoint.run();
    const frame = journal.open();
    const more = (): boolean => from + group.length < batch.length && batch[from + group.length]!.bare && performance.now() < deadline;
    const step = (): boolean | Promise<boolean> => {
      const unit = batch[from + group.length]!;
      group.push(unit);
      outboxes.push([]);
      const value = call(unit, outboxes[outboxes.length - 1]!);
      if (isThenable(value)) return (value as Promise<unknown>).then((settled) => values.push(settled) > 0 && more());
      values.push(value);
      return more();
    };
    const kept = (): number => {
      frame.keep();
      sql.release.run();
      values.forEach((value, k) => outcomes.push({ ok: true, value, outbox: outboxes[k]! }));
      return group.length;
    };
    const retried = (): number | Promise<number> => {
      frame.undo();
      rollBackSavepoint();
      const rerun = oneByOne(group, outcomes);
      return isThenable(rerun) ? rerun.then(() => group.length) : group.length;
    };
    let done: void | Promise<void>;
    try {
      done = loop(step);
    } catch {
      return retried();
    }
    return isThenable(done) ? done.then(kept, retried) : kept();
  };

  const abort = (frame: JournalFrame): void => {
    frame.undo();
    if (db.inTransaction) sql.rollback.run();
  };
  const commit = (frame: JournalFrame, outcomes: Outcome[]): Outcome[] => {
    try {
      sql.commit.run();
    } catch (error) {
      abort(frame);
      throw error;
    }
    frame.keep();
    return outcomes;
  };

  function run(batch: readonly BatchUnit[], deadline: number): Outcome[] | Promise<Outcome[]> {
    begin();
    const frame = journal.open();
    const outcomes: Outcome[] = [];
    let i = 0;
    const step = (): boolean | Promise<boolean> => {
      if (i >= batch.length || (i > 0 && performance.now() >= deadline)) return false;
      if (batch[i]!.bare) {
        const took = bareRun(batch, i, deadline, outcomes);
        if (isThenable(took)) return took.then((n) => (i += n) > 0);
        i += took;
        return true;
      }
      const outcome = attempt(batch[i]!);
      i += 1;
      if (isThenable(outcome)) return outcome.then((settled) => outcomes.push(settled) > 0);
      outcomes.push(outcome);
      return true;
    };
    let done: void | Promise<void>;
    try {
      done = loop(step);
    } catch (error) {
      abort(frame);
      throw error;
    }
    if (!isThenable(done)) return commit(frame, outcomes);
    return done.then(
      () => commit(frame, outcomes),
      (error: unknown) => {
        abort(frame);
        throw error;
      },
    );
  }

  return { run, outbox: () => current };
}
