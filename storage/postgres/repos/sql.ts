// What every PostgreSQL repository shares: run a statement, map its rows, write JSON, name constraint failures.
import { ConstraintViolationError, POSTGRES_KINDS } from '../../port/errors.js';
import type { CreatedCursor } from '../../records/paging.js';
import { CREATED_COLUMNS, type KeysetColumns } from '../../repos/keyset.js';
import type { Queryable } from '../queryable.js';

export type { Queryable };

/**
 * Runs one statement (positional `$n` parameters). An integrity violation becomes ConstraintViolationError, which
 * names the table and constraint but drops pg's `detail` (it quotes the values: an email, a token hash).
 */
async function query<Row>(q: Queryable, text: string, values: readonly unknown[]): Promise<{ rows: Row[]; rowCount: number }> {
  try {
    const result = await q.query(text, values as unknown[]);
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  } catch (error) {
    const { code, table, constraint } = error as { code?: string; table?: string; constraint?: string };
    const kind = code === undefined ? undefined : POSTGRES_KINDS[code];
    if (kind !== undefined) throw new ConstraintViolationError(kind, table ?? null, constraint ?? null);
    throw error;
  }
}

/** The first row mapped, or `undefined` (as the SQLite repositories' `.get()`). */
export async function one<Row, T>(q: Queryable, text: string, values: readonly unknown[], fromRow: (row: Row) => T): Promise<T | undefined> {
  const { rows } = await query<Row>(q, text, values);
  return rows.length === 0 ? undefined : fromRow(rows[0]!);
}

/** Every row mapped, in the statement's order. */
export async function many<Row, T>(q: Queryable, text: string, values: readonly unknown[], fromRow: (row: Row) => T): Promise<T[]> {
  const { rows } = await query<Row>(q, text, values);
  return rows.map(fromRow);
}

/** A single value of the first row (a count, a flag); `undefined` when there is no row. */
export async function scalar<T>(q: Queryable, text: string, values: readonly unknown[]): Promise<T | undefined> {
  const { rows } = await query<Record<string, T>>(q, text, values);
  return rows.length === 0 ? undefined : Object.values(rows[0]!)[0];
}

/** Runs a write; returns how many rows it changed (SQLite's `changes`). */
export async function run(q: Queryable, text: string, values: readonly unknown[]): Promise<number> {
  return (await query(q, text, values)).rowCount;
}

/** Runs a write whose count nobody reads. */
export async function write(q: Queryable, text: string, values: readonly unknown[]): Promise<void> {
  await query(q, text, values);
}

/** Inserts one row from a `toRow` object (column → value); column names come from the repository's code, never from input. */
export async function insert(q: Queryable, table: string, row: object): Promise<void> {
  await query(q, insertSql(table, row), Object.values(row));
}

/** Inserts one row unless it conflicts on `target` (`ON CONFLICT target DO NOTHING`); false when nothing was written. */
export async function insertUnlessConflict(q: Queryable, table: string, row: object, target: string): Promise<boolean> {
  return (await query(q, `${insertSql(table, row)} ON CONFLICT ${target} DO NOTHING`, Object.values(row))).rowCount > 0;
}

/** Inserts one row, or on a conflict on `target` overwrites the listed columns with the new row's values. */
export async function upsert(q: Queryable, table: string, row: object, target: string, update: readonly string[]): Promise<void> {
  const set = update.map((column) => `${column} = EXCLUDED.${column}`).join(', ');
  await query(q, `${insertSql(table, row)} ON CONFLICT ${target} DO UPDATE SET ${set}`, Object.values(row));
}

function insertSql(table: string, row: object): string {
  const columns = Object.keys(row);
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
}

/**
 * A `json`/`jsonb` parameter. Always stringify: pg would send a JavaScript array as a PostgreSQL array literal, and
 * for a `json` column the text is what is kept, key order included.
 */
export const json = (value: unknown): string => JSON.stringify(value);

/** A jsonb column that must hold an object: anything else reads as `{}` (as storage/row-mapping.ts's jsonObjectColumn). */
export function jsonObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A jsonb column that must hold an array: anything else reads as `[]`. */
export function jsonArray<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

/** Oldest first; ties by id in byte order (COLLATE "C"), as SQLite's BINARY collation sorts them, whatever the database's. */
export const CREATION_ORDER = 'ORDER BY created_at, id COLLATE "C"';

/**
 * Keyset paging on (created_at, id): rows strictly past the position `$n` (created_at) and `$n+1` (id), at most
 * `$n+2`, in `order` ('asc': oldest first, 'desc': newest first); a null position (keysetValues) is the first page.
 * The id compares and sorts in byte order (COLLATE "C", as SQLite compares text), so a page ends where SQLite's
 * would whatever the database's collation. The `<=`/`>=` term gives the index scan its start: pg plans an unnamed
 * statement with its values, so the `IS NULL` folds away and a deep page does not filter every newer row first.
 * Ends the statement (ORDER BY, LIMIT): put it last in the WHERE.
 */
export function keysetClause(n: number, order: 'asc' | 'desc' = 'asc', columns: KeysetColumns = CREATED_COLUMNS): string {
  const [past, direction] = order === 'asc' ? ['>', ''] : ['<', ' DESC'];
  const { createdAt, id } = columns;
  return `($${n}::bigint IS NULL OR (${createdAt} ${past}= $${n} AND (${createdAt} ${past} $${n} OR ${id} COLLATE "C" ${past} $${n + 1})))
   ORDER BY ${createdAt}${direction}, ${id} COLLATE "C"${direction} LIMIT $${n + 2}`;
}

/** keysetClause's three parameters: the position (null: the first page) and the limit. */
export const keysetValues = (position: CreatedCursor | null, limit: number): unknown[] => [position?.createdAt ?? null, position?.id ?? null, limit];
