// The storage port's unit of work: what a unit sees (its repositories, its outbox) and the writer that commits units.
/*
 * Types only, no driver: SQLite implements UnitWriter with its group-commit writer (storage/group-commit.ts), where
 * repositories stay synchronous and an async unit settles within microtasks; PostgreSQL with
 * storage/postgres/unit-of-work.ts, where every repository call is I/O. Code written against these types runs on
 * either driver as long as it awaits what it calls. Decision "Asynchronous units of work (issue 16 item 1)".
 */

/** What a unit of work is handed: the repositories bound to the batch's transaction, and its outbox. */
export interface UnitContext<R> {
  /** Repositories inside this unit's transaction (SQLite: the store's, on its one connection; PostgreSQL: bound to the batch's client). */
  readonly repos: R;
  /**
   * Runs `publish` once this unit's transaction has committed (units in commit order, each unit's calls in order),
   * before its caller resumes; never if the unit rolls back. Session events to SSE and observers go here.
   */
  afterCommit(publish: () => void): void;
}

/** A unit of work: reads and writes through `tx.repos`; throwing (or rejecting) rolls back this unit only. */
export type Unit<R, T> = (tx: UnitContext<R>) => T | Promise<T>;

export interface UnitSubmitOptions {
  /**
   * False for a unit whose checks all run before its first write: it may share a savepoint with its neighbours and
   * then must be safe to run a second time (decision "Units without a savepoint"). A driver may ignore it.
   */
  savepoint?: boolean;
}

export interface UnitWriterStats {
  /** Transactions committed (or attempted) by the writer. */
  batches: number;
  /** Units those transactions ran. */
  units: number;
  /** Seconds spent in batch transactions, commit included. */
  seconds: number;
}

/**
 * Commits units of work in batches: units submitted together share one transaction, each in its own savepoint, so
 * one failing unit rolls back only itself and rejects only its own caller. Resolves with the unit's value only
 * after its transaction committed (a 202 means durable).
 */
export interface UnitWriter<R> {
  submit<T>(unit: Unit<R, T>, options?: UnitSubmitOptions): Promise<T>;
  /** Commits whatever is queued now; synchronous on SQLite when every queued unit is, a promise otherwise: await it. */
  flush(): void | Promise<void>;
  readonly stats: UnitWriterStats;
}
