// PostgreSQL unit writer: units submitted in one loop turn share one transaction on one pooled client, a savepoint each.
/*
 * The port's UnitWriter (storage/port/unit.ts) over a pg pool. A batch is what was queued when the writer next
 * runs (setImmediate after a submit, or as soon as a client is free), up to maxBatch units and maxBatchMs of unit
 * time; up to maxInFlight batches are in flight, each on its own client, but only one of them runs units at a time:
 * the next batch begins once the previous one ran its last unit, while that one's COMMIT is still on its way (see
 * "Batches in flight" below). Each unit runs after a savepoint, so a
 * failing unit is rolled back alone (ROLLBACK TO) and rejects only its caller; a batch of one needs no savepoint. Failures of
 * the transaction itself reject every unit it ran with an error saying whether anything may have committed. A
 * fenced unit's lease check rides the BEGIN or SAVEPOINT sent before it and is made once per transaction
 * (batch-locks.ts). Decision "Asynchronous units of work (issue 16 item 1)" holds the measurements behind the
 * defaults, "PostgreSQL throughput: where the time went" those behind the riding checks.
 */
/*
 * Batches in flight: units are opaque, so which rows a batch will lock is known only as it runs. Two batches running
 * units at once can therefore take the same rows in opposite orders: appending events to sessions A then B in one
 * and B then A in the other, each waits for the other's uncommitted (session_id, seq) key until PostgreSQL aborts
 * one (40P01), and a later-submitted unit could take a session's seq before an earlier one. So a batch begins only
 * once the batch before it ran its last unit. It may still wait on that batch's rows, but only for its COMMIT, which
 * waits on nothing of the newer batch (the schema has no deferred constraints; a cycle through one would still be
 * PostgreSQL's to see and break, never a hang): no cycle within one process, and a session's events get seqs in submission
 * order (a newer batch's append meets the older one's uncommitted key, waits for its commit, then takes the next
 * seq). What still overlaps is the expensive part, the COMMIT's WAL flush, with the next batch's units. Between
 * nodes the rerun rule below remains (decision "PostgreSQL: concurrent event appends").
 */
import pg from 'pg';
import type { PostgresPool } from './connection.js';
import type { Unit, UnitContext, UnitSubmitOptions, UnitWriter, UnitWriterStats } from '../port/unit.js';
import { BatchRolledBackError, CommitOutcomeUnknownError, UnitContendedError, WriterOverloadedError } from '../port/unit-errors.js';
import { currentFence, outsideFence, type Fence } from './fence.js';
import { BatchLocks } from './batch-locks.js';
import { StaleLeaseError } from './leases.js';

export interface PostgresUnitWriterOptions<R> {
  pool: PostgresPool;
  /** The repositories a unit sees, bound to the batch's client (so they run inside its transaction). */
  bindRepos: (client: pg.PoolClient) => R;
  /**
   * Units per transaction at most (1: one transaction per unit). 64 because each writing unit's savepoint takes a
   * subtransaction id and a backend caches only 64 of them per transaction: past that, every other session's
   * snapshot checks go through pg_subtrans (the "suboverflowed" cliff).
   */
  maxBatch?: number;
  /** Stop adding units to a batch once its units have run this long (ms): a long batch delays every commit in it. */
  maxBatchMs?: number;
  /**
   * Batches (clients) in flight at once: one running units, the others committing. Keep it below the pool's size so
   * reads still get a client.
   */
  maxInFlight?: number;
  /** Units waiting for a batch at most; past it submit rejects with WriterOverloadedError (nothing written). */
  maxQueued?: number;
  /** An outbox callback threw (the commit stands; the unit's caller still gets its value). */
  onPublishError?: (error: unknown) => void;
}

export interface PostgresUnitWriterStats extends UnitWriterStats {
  /** Units waiting for a batch now. */
  queued: number;
  /** Batches running now (units or COMMIT). */
  inFlight: number;
  /** Submits refused with WriterOverloadedError. */
  refused: number;
  /** Always 0: units here may await I/O inside their transaction (runtime/telemetry's WriterSamples reads it). */
  readonly spannedTurns: number;
  /** [units, seconds] of recent batches, for a metrics scrape to drain; stops growing at SAMPLE_LIMIT. */
  samples: Array<[number, number]>;
}

interface Pending {
  readonly work: Unit<unknown, unknown>;
  /** The lease the unit was submitted under (storage/postgres/fence.ts): checked first in its transaction. */
  readonly fence: Fence | undefined;
  /** Submitted with `savepoint: false`: the caller declared it safe to run twice, so a contended run is run again. */
  readonly rerunnable: boolean;
  /** Runs that ended contended so far. */
  contended: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Outcome {
  readonly ok: boolean;
  readonly value: unknown;
  readonly outbox: Array<() => void>;
}

/** The transaction itself failed before COMMIT (a control statement, the connection): nothing of the batch committed. */
class TransactionLost extends Error {}

const MAX_RETRY_AFTER_S = 60;
/** Per-batch samples kept between two scrapes at most (as SQLite's group commit): nothing scraping, nothing grows. */
const SAMPLE_LIMIT = 10_000;
/** Runs of a rerunnable unit that may end contended before its caller gets UnitContendedError. */
const MAX_CONTENDED_RUNS = 3;

/**
 * PostgreSQL aborted the statement to break a deadlock (40P01) or a serialization conflict (40001) with another
 * transaction: typically two nodes' batches inserting the same idempotency keys, or appending to the same sessions,
 * in opposite orders. Retrying inside the same transaction would meet the same locks, so a rerunnable unit goes back
 * to the queue and runs in a later transaction, after this one released its locks.
 */
const isContention = (error: unknown): boolean => error instanceof pg.DatabaseError && (error.code === '40P01' || error.code === '40001');

export function createPostgresUnitWriter<R>(options: PostgresUnitWriterOptions<R>): UnitWriter<R> & { readonly stats: PostgresUnitWriterStats } {
  const { pool, bindRepos } = options;
  const maxBatch = options.maxBatch ?? 64;
  const maxBatchMs = options.maxBatchMs ?? 20;
  const maxInFlight = options.maxInFlight ?? 4;
  const maxQueued = options.maxQueued ?? 10_000;
  const onPublishError = options.onPublishError ?? ((error: unknown) => process.emitWarning(`unit-of-work outbox callback failed: ${String(error)}`));
  let queue: Pending[] = [];
  let scheduled = false;
  /** A batch is between taking its units and running its last one: no other batch begins meanwhile (see above). */
  let running = false;
  const idle: Array<() => void> = [];
  const stats: PostgresUnitWriterStats = { batches: 0, units: 0, seconds: 0, queued: 0, inFlight: 0, refused: 0, spannedTurns: 0, samples: [] };

  /** Control statements: any failure means the transaction is gone (aborted server-side or the connection lost). */
  const control = async (client: pg.PoolClient, sql: string): Promise<pg.QueryResult> => {
    try {
      return await client.query(sql);
    } catch (error) {
      throw new TransactionLost('transaction lost', { cause: error });
    }
  };

  /**
   * One unit, after the savepoint named `unit` (unless it is alone in its transaction). Savepoints are not released:
   * the one taken after a unit both checks that the unit left the transaction usable (a unit that caught a failed
   * statement and returned leaves it aborted: that SAVEPOINT fails) and is the next unit's, one round trip per unit
   * instead of SAVEPOINT + RELEASE. ROLLBACK TO keeps the savepoint, so after a failure it serves the next unit too.
   * `held` is the answer of the unit's fence check if one rode the previous control statement; `following` (asked
   * once the unit's work is done, so the batch's time cap counts it) is the unit to run next, whose check rides this
   * unit's SAVEPOINT. Returns the outcome and that next check's answer.
   */
  async function runUnit(
    fences: BatchLocks,
    repos: R,
    unit: Pending,
    savepoint: boolean,
    held: boolean | undefined,
    following: () => Pending | undefined,
  ): Promise<[Outcome, boolean | undefined]> {
    const outbox: Array<() => void> = [];
    const tx: UnitContext<R> = { repos, afterCommit: (publish) => void outbox.push(publish) };
    try {
      if (unit.fence !== undefined) {
        if (held === false) throw new StaleLeaseError(unit.fence.resource, unit.fence.token);
        if (held === undefined) await fences.check(unit.fence);
      }
      const value = await (unit.work as Unit<R, unknown>)(tx);
      const next = savepoint ? await fences.control('SAVEPOINT unit', true, following()?.fence) : undefined;
      return [{ ok: true, value, outbox }, next];
    } catch (error) {
      await control(fences.client, savepoint ? 'ROLLBACK TO SAVEPOINT unit' : 'ROLLBACK');
      fences.rolledBack();
      return [{ ok: false, value: error, outbox: [] }, undefined];
    }
  }

  /**
   * Runs a batch. `unitsDone` is called once, when its units have run (before COMMIT), with the units the time cap
   * left out; returns the rerunnable units that ended contended, to run again in a later transaction.
   */
  async function runBatch(batch: Pending[], unitsDone: (left: Pending[]) => void): Promise<Pending[]> {
    const started = performance.now();
    const outcomes: Outcome[] = [];
    let client: pg.PoolClient | null = null;
    let locks: BatchLocks | null = null;
    let ended = false;
    // A checked-out client's connection error (the server ended the backend between two queries) is emitted on the
    // client, which the pool only watches while idle: unobserved it would crash the process. The next query fails.
    const swallow = (): void => {};
    try {
      client = await pool.connect();
      client.on('error', swallow);
      const repos = bindRepos(client);
      const fences = (locks = new BatchLocks(client));
      const alone = batch.length === 1;
      let held: boolean | undefined;
      try {
        held = await fences.control(alone ? 'BEGIN' : 'BEGIN; SAVEPOINT unit', !alone, batch[0]!.fence);
      } catch (error) {
        throw new TransactionLost('transaction lost', { cause: error });
      }
      fences.opened();
      // The cap counts unit time only: waiting for a client (or opening one) delays no commit already in this batch.
      const opened = performance.now();
      /** The unit at `index`, if the batch has one and the time cap still lets it in. */
      const admits = (index: number): Pending | undefined => (index < batch.length && performance.now() - opened < maxBatchMs ? batch[index] : undefined);
      for (let i = 0; ; i++) {
        // Whether the next unit runs is decided once: where its fence check rode this unit's SAVEPOINT, or after a failure.
        let asked = null as Pending | undefined | null;
        const [outcome, next] = await runUnit(fences, repos, batch[i]!, !alone, held, () => (asked = admits(i + 1)));
        outcomes.push(outcome);
        // A lone unit that failed was rolled back with its transaction: nothing is left to commit.
        if (alone && !outcome.ok) ended = true;
        if ((asked === null ? admits(i + 1) : asked) === undefined) break;
        held = next;
      }
    } catch (error) {
      locks?.ended();
      client?.off('error', swallow);
      client?.release(true);
      for (const unit of batch) unit.reject(new BatchRolledBackError((error as Error).cause ?? error));
      unitsDone([]);
      return [];
    }
    const ran = batch.slice(0, outcomes.length);
    // The next batch may begin now: whatever it waits on of this one is released by the COMMIT sent next.
    unitsDone(batch.slice(outcomes.length));
    /** Rerunnable units that ended contended: back to the head of the queue, for a later transaction. */
    const again: Pending[] = [];
    const commitError = ended ? null : await commit(client);
    locks!.ended();
    client.off('error', swallow);
    client.release(commitError !== null);
    const seconds = (performance.now() - started) / 1000;
    stats.batches += 1;
    stats.units += ran.length;
    stats.seconds += seconds;
    if (stats.samples.length < SAMPLE_LIMIT) stats.samples.push([ran.length, seconds]);
    if (commitError !== null) {
      // A unit that failed on its own was rolled back whatever COMMIT did; the others share the commit's fate.
      ran.forEach((unit, i) => {
        const { ok, value } = outcomes[i]!;
        unit.reject(ok ? commitError : isContention(value) ? new UnitContendedError(value) : value);
      });
    } else {
      for (const outcome of outcomes) publish(outcome.outbox);
      ran.forEach((unit, i) => {
        const { ok, value } = outcomes[i]!;
        if (ok) unit.resolve(value);
        else if (!isContention(value)) unit.reject(value);
        else if (unit.rerunnable && ++unit.contended < MAX_CONTENDED_RUNS) again.push(unit);
        else unit.reject(new UnitContendedError(value));
      });
    }
    return again;
  }

  /**
   * COMMIT; null once committed. An ERROR answer means rolled back (a deferred constraint, a serialization failure;
   * so does the ROLLBACK tag PostgreSQL answers to COMMIT of an aborted transaction). No answer, or a FATAL one (the
   * backend terminated: that may happen after the commit record is durable), means the outcome is unknown.
   */
  async function commit(client: pg.PoolClient): Promise<Error | null> {
    try {
      const result = await client.query('COMMIT');
      return result.command === 'ROLLBACK' ? new BatchRolledBackError('COMMIT of an aborted transaction rolled it back') : null;
    } catch (error) {
      return error instanceof pg.DatabaseError && error.severity === 'ERROR' ? new BatchRolledBackError(error) : new CommitOutcomeUnknownError(error);
    }
  }

  function publish(outbox: ReadonlyArray<() => void>): void {
    for (const callback of outbox) {
      try {
        callback();
      } catch (error) {
        onPublishError(error);
      }
    }
  }

  /** Units back to the head of the queue, ahead of anything submitted since; wakes the writer if any is queued. */
  function requeue(units: Pending[]): void {
    if (units.length > 0) queue = units.concat(queue);
    stats.queued = queue.length;
    if (queue.length > 0) wakeUp();
  }

  function dispatch(): void {
    scheduled = false;
    // One batch at a time runs units (see "Batches in flight" above); the next begins from its unitsDone.
    if (queue.length > 0 && stats.inFlight < maxInFlight && !running) {
      const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
      if (batch === queue) queue = [];
      stats.inFlight += 1;
      running = true;
      const unitsDone = (left: Pending[]): void => {
        running = false;
        // Units the time cap left out run next, before anything submitted since.
        requeue(left);
      };
      void runBatch(batch, unitsDone).then((again) => {
        stats.inFlight -= 1;
        requeue(again);
        if (queue.length === 0 && stats.inFlight === 0) idle.splice(0).forEach((resolve) => resolve());
      });
    }
    stats.queued = queue.length;
  }

  function wakeUp(): void {
    if (scheduled) return;
    scheduled = true;
    // Batches run, and publish their outbox, outside the fence of whichever submit woke the writer (fence.ts).
    setImmediate(outsideFence, dispatch);
  }

  /**
   * Seconds until the queue should have room, from the units per second the batches have been committing. Batches
   * run their units one after another, so the rate is not multiplied by the batches in flight (only COMMITs overlap:
   * counting them in each batch's time errs towards a longer wait, the safe side).
   */
  function retryAfter(): number {
    const perSecond = stats.seconds > 0 ? stats.units / stats.seconds : 1;
    return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(queue.length / perSecond)));
  }

  return {
    stats,
    submit<T>(work: Unit<R, T>, options?: UnitSubmitOptions): Promise<T> {
      // Every unit has its own savepoint here; `savepoint: false` only says the unit is safe to run twice (rerunnable).
      if (queue.length >= maxQueued) {
        stats.refused += 1;
        return Promise.reject(new WriterOverloadedError(queue.length, retryAfter()));
      }
      return new Promise<T>((resolve, reject) => {
        const rerunnable = options?.savepoint === false;
        queue.push({ work: work as Unit<unknown, unknown>, fence: currentFence(), rerunnable, contended: 0, resolve: resolve as (value: unknown) => void, reject });
        stats.queued = queue.length;
        wakeUp();
      });
    },
    flush() {
      if (queue.length === 0 && stats.inFlight === 0) return Promise.resolve();
      const done = new Promise<void>((resolve) => idle.push(resolve));
      outsideFence(dispatch);
      return done;
    },
  };
}
