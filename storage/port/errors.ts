// Storage errors callers may tell apart, one kind whichever driver raised it (SQLite's codes, PostgreSQL's SQLSTATEs).

export type ConstraintKind = 'unique' | 'foreign_key' | 'not_null' | 'check';

/**
 * A write broke an integrity constraint. The PostgreSQL repositories throw this instead of the driver's error,
 * whose `detail` quotes the offending values (an email, a token hash): the table and constraint names say enough.
 */
export class ConstraintViolationError extends Error {
  constructor(
    readonly kind: ConstraintKind,
    readonly table: string | null,
    readonly constraint: string | null,
  ) {
    super(`${kind.replace('_', ' ')} constraint ${constraint ?? '(unnamed)'} failed on ${table ?? '(unknown table)'}`);
    this.name = 'ConstraintViolationError';
  }
}

/** better-sqlite3's extended result codes, as thrown by the SQLite repositories. */
const SQLITE_KINDS: Readonly<Record<string, ConstraintKind>> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign_key',
  SQLITE_CONSTRAINT_NOTNULL: 'not_null',
  SQLITE_CONSTRAINT_CHECK: 'check',
};

/** PostgreSQL's class 23 SQLSTATEs (integrity constraint violations) that have a kind here. */
export const POSTGRES_KINDS: Readonly<Record<string, ConstraintKind>> = {
  '23505': 'unique',
  '23503': 'foreign_key',
  '23502': 'not_null',
  '23514': 'check',
};

/** The constraint kind `error` reports, from either driver; null for any other error. */
export function constraintKind(error: unknown): ConstraintKind | null {
  if (error instanceof ConstraintViolationError) return error.kind;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? (SQLITE_KINDS[code] ?? null) : null;
}

/** A duplicate key (unique index or primary key) on either driver. */
export const isUniqueViolation = (error: unknown): boolean => constraintKind(error) === 'unique';

/**
 * A duplicate key on `table`, on either driver: the PostgreSQL repositories name the table, SQLite's message names its
 * columns as `table.column`. Lets a request path answer a lost insert race (its unit rolled back) from committed state.
 */
export function isUniqueViolationOn(error: unknown, table: string): boolean {
  if (!isUniqueViolation(error)) return false;
  if (error instanceof ConstraintViolationError) return error.table === table;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && message.includes(`${table}.`);
}

/**
 * True when `error` is a run insert meeting trigger_runs_claim (another run already holds the idempotency key), on
 * either driver: SQLite names the column in its message, the PostgreSQL repositories the index.
 */
export function isClaimConflict(error: unknown): boolean {
  if (!isUniqueViolation(error)) return false;
  if (error instanceof ConstraintViolationError) return error.constraint === 'trigger_runs_claim';
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && message.includes('trigger_runs.claim_key');
}
