// One group-commit transaction: each unit in its savepoint (or a shared one), each unit's outbox, a time cap.
import type { SqliteDatabase } from './database.js';
import { journalOf } from './tx-journal.js';

export interface BatchUnit {
  readonly work: () => unknown;
  /** Submitted without a savepoint of its own (its checks all run before its first write). */
  readonly bare: boolean;
}

/** What one unit did: its value or error, and the publications to run once the batch committed. */
export interface Outcome {
  readonly ok: boolean;
  readonly value: unknown;
  readonly outbox: Array<() => void>;
}

export interface BatchRunner {
  /**
   * Runs units of `batch` in order inside one IMMEDIATE transaction and commits it. Units stop being added once
   * `deadline` (performance.now() time) has passed, the first always runs: the outcomes cover a prefix of the batch.
   */
  run(batch: readonly BatchUnit[], deadline: number): Outcome[];
  /** The outbox of the unit running now; null between units. */
  outbox(): Array<() => void> | null;
}

export function createBatchRunner(db: SqliteDatabase): BatchRunner {
  let current: Array<() => void> | null = null;
  // In-memory state the units cached (event seqs) is rolled back with the unit or batch that wrote it.
  const journal = journalOf(db);

  /** Runs one unit with its outbox open; what it queued is kept only if it returns. */
  const withOutbox = <T>(mine: Array<() => void>, work: () => T): T => {
    current = mine;
    try {
      return work();
    } finally {
      current = null;
    }
  };
  /** One unit in its own savepoint: a failure rolls back only this unit, and what it meant to publish never happens. */
  const attempt = (unit: BatchUnit): Outcome => {
    const mine: Array<() => void> = [];
    try {
      return { ok: true, value: journal.frame(db.transaction(() => withOutbox(mine, unit.work))), outbox: mine };
    } catch (error) {
      return { ok: false, value: error, outbox: [] };
    }
  };
  /**
   * A run of consecutive bare units starting at `from` shares one savepoint, up to the deadline; if any of them
   * throws, that savepoint is rolled back and the units it ran run again one savepoint each, so only the failing
   * one is lost (they must be safe to run again).
   */
  const bareRun = (batch: readonly BatchUnit[], from: number, deadline: number, outcomes: Outcome[]): number => {
    const group: BatchUnit[] = [];
    const outboxes: Array<Array<() => void>> = [];
    try {
      const values = journal.frame(
        db.transaction(() => {
          const ran: unknown[] = [];
          do {
            const unit = batch[from + group.length]!;
            group.push(unit);
            outboxes.push([]);
            ran.push(withOutbox(outboxes[outboxes.length - 1]!, unit.work));
          } while (from + group.length < batch.length && batch[from + group.length]!.bare && performance.now() < deadline);
          return ran;
        }),
      );
      values.forEach((value, k) => outcomes.push({ ok: true, value, outbox: outboxes[k]! }));
    } catch {
      for (const unit of group) outcomes.push(attempt(unit));
    }
    return group.length;
  };

  const runAll = db.transaction((batch: readonly BatchUnit[], deadline: number) => {
    const outcomes: Outcome[] = [];
    let i = 0;
    while (i < batch.length && (i === 0 || performance.now() < deadline)) {
      if (batch[i]!.bare) {
        i += bareRun(batch, i, deadline, outcomes);
      } else {
        outcomes.push(attempt(batch[i]!));
        i += 1;
      }
    }
    return outcomes;
  });

  return {
    run: (batch, deadline) => journal.frame(() => runAll.immediate(batch, deadline)),
    outbox: () => current,
  };
}
