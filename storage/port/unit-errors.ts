// Errors a unit writer rejects with, on either driver: each says whether the unit's writes may have committed.
/*
 * storage/ imports nothing from runtime/, so these are plain errors with a stable `code`; the runtime turns them
 * into AppError (runtime/errors.ts) where it submits units.
 */

/** The writer's queue is full: nothing was written; retry after `retryAfterSeconds` (HTTP: 503 + Retry-After). */
export class WriterOverloadedError extends Error {
  readonly code = 'WRITER_OVERLOADED';
  constructor(readonly queued: number, readonly retryAfterSeconds: number) {
    super(`the storage writer already holds ${queued} units of work; retry after ${retryAfterSeconds} s`);
    this.name = 'WriterOverloadedError';
  }
}

/** The batch's transaction was lost before COMMIT (connection broken, server error): nothing of it was committed. */
export class BatchRolledBackError extends Error {
  readonly code = 'BATCH_ROLLED_BACK';
  constructor(cause: unknown) {
    super(`the unit's transaction was rolled back before commit (nothing was written): ${messageOf(cause)}`, { cause });
    this.name = 'BatchRolledBackError';
  }
}

/**
 * The database aborted the unit's statement to break a deadlock or a serialization conflict with another
 * transaction (PostgreSQL 40P01 / 40001): nothing of the unit was written, and running it again may well succeed.
 */
export class UnitContendedError extends Error {
  readonly code = 'UNIT_CONTENDED';
  constructor(cause: unknown) {
    super(`the unit's write conflicted with another transaction and was rolled back (nothing was written): ${messageOf(cause)}`, { cause });
    this.name = 'UnitContendedError';
  }
}

/**
 * The unit was submitted under a lease (a session's owner on PostgreSQL) whose token is no longer current: another
 * holder may have taken the resource, so nothing of the unit was written. Never raised on SQLite (one owner).
 */
export class StaleLeaseError extends Error {
  readonly code = 'STALE_LEASE';
  constructor(readonly resource: string, readonly token: number) {
    super(`lease on ${resource} with token ${token} is no longer held; the write is refused`);
    this.name = 'StaleLeaseError';
  }
}

/** COMMIT was sent but no answer came back (connection lost): the unit's writes may or may not have committed. */
export class CommitOutcomeUnknownError extends Error {
  readonly code = 'COMMIT_OUTCOME_UNKNOWN';
  constructor(cause: unknown) {
    super(`the connection was lost while committing; whether the unit's writes committed is unknown: ${messageOf(cause)}`, { cause });
    this.name = 'CommitOutcomeUnknownError';
  }
}

/**
 * A SQLite unit was still pending on the next turn of the event loop: it awaited real I/O while holding the one
 * write transaction. It is rolled back whatever it later returns (see the decision's sentinel rule).
 */
export class UnitSpannedLoopTurnError extends Error {
  readonly code = 'UNIT_SPANNED_LOOP_TURN';
  constructor() {
    super(
      'a unit of work was still pending on the next event-loop turn: it awaited I/O inside the SQLite write transaction, ' +
        'which would hold every other writer; it was rolled back. Do the I/O before submitting, or after commit (afterCommit).',
    );
    this.name = 'UnitSpannedLoopTurnError';
  }
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
