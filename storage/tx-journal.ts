// Undo for in-memory state kept beside a connection's writes: what a rolled-back transaction changed in memory is put back.
/*
 * Repositories that cache what the database will say (a session's next event seq) record an undo step while a
 * write runs; whoever owns the transaction opens a frame around each unit and each batch. A unit that fails runs
 * its own undo steps (its savepoint rolled back); a unit that succeeds hands them to the batch, which drops them
 * once it commits or runs them all if it fails. A write made with no frame open cannot know its fate: the caller
 * is told so (`framed` false) and must not cache it.
 */
import type { SqliteDatabase } from './database.js';

export interface TxJournal {
  /** True while a frame is open: an undo recorded now will run if the enclosing transaction rolls back. */
  readonly framed: boolean;
  onRollback(undo: () => void): void;
  /** Runs `work` in a frame (call it around the transaction or savepoint that `work` is). */
  frame<T>(work: () => T): T;
  /**
   * Opens a frame that outlives the call (an asynchronous unit, a batch opened with BEGIN): close it with `keep`
   * once its savepoint is released or its transaction committed, or `undo` once rolled back. Frames nest: close the
   * innermost first.
   */
  open(): JournalFrame;
}

export interface JournalFrame {
  keep(): void;
  undo(): void;
}

const journals = new WeakMap<SqliteDatabase, TxJournal>();

/** The connection's journal (one per database handle). */
export function journalOf(db: SqliteDatabase): TxJournal {
  let journal = journals.get(db);
  if (journal === undefined) {
    journal = createJournal();
    journals.set(db, journal);
  }
  return journal;
}

function createJournal(): TxJournal {
  const frames: Array<Array<() => void>> = [];
  const keep = (undos: Array<() => void>): void => {
    frames.pop();
    frames[frames.length - 1]?.push(...undos);
  };
  const undo = (undos: Array<() => void>): void => {
    frames.pop();
    for (let i = undos.length - 1; i >= 0; i--) undos[i]!();
  };
  return {
    get framed() {
      return frames.length > 0;
    },
    onRollback(undo) {
      frames[frames.length - 1]?.push(undo);
    },
    frame(work) {
      const undos: Array<() => void> = [];
      frames.push(undos);
      try {
        const result = work();
        keep(undos);
        return result;
      } catch (error) {
        undo(undos);
        throw error;
      }
    },
    open() {
      const undos: Array<() => void> = [];
      frames.push(undos);
      return { keep: () => keep(undos), undo: () => undo(undos) };
    },
  };
}
