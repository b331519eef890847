// Reads (and, for setup, writes) a test service's database with one SQL text on either engine, SQLite or PostgreSQL.
import type pg from 'pg';
import type { Service } from '../../http/service.js';
import type { PostgresStorage } from '../../storage/postgres/storage.js';

type Row = Record<string, unknown>;

export interface SqlReader {
  /** Rows of a portable query with `?` placeholders, shaped as SQLite returns them (see `asOnSqlite`). */
  all<T = Row>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** The first row, or undefined. */
  get<T = Row>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  /** The first column of the first row (better-sqlite3's `pluck().get()`), or undefined. */
  value<T = unknown>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  /** The first column of every row (`pluck().all()`). */
  column<T = unknown>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** The `n` column of a `SELECT count(*) AS n …`, as a number. */
  count(sql: string, ...params: unknown[]): Promise<number>;
  /**
   * A portable write outside the repositories, for a state no API reaches (a suspended org, an aged row). Like a
   * raw write on SQLite before, it bypasses the read cache: make it before the service reads the row.
   */
  run(sql: string, ...params: unknown[]): Promise<void>;
}

/** `?` placeholders as PostgreSQL's `$1, $2…`, leaving quoted literals alone (`'?'` stays a question mark). */
export function numberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|\?/g, (match) => (match === '?' ? `$${++n}` : match));
}

// PostgreSQL type oids whose values SQLite returns differently: so one assertion holds on both engines.
const BOOL = 16;
const INT8 = 20;
const NUMERIC = 1700;
const JSON_OID = 114;
const JSONB = 3802;

/** A PostgreSQL row as SQLite stores the same column: booleans 1/0, counts and bigints numbers, JSON as its text. */
function asOnSqlite(row: Row, fields: pg.FieldDef[]): Row {
  const out: Row = {};
  for (const { name, dataTypeID } of fields) {
    const value = row[name];
    if (value === null || value === undefined) out[name] = value;
    else if (dataTypeID === BOOL) out[name] = value ? 1 : 0;
    else if (dataTypeID === INT8 || dataTypeID === NUMERIC) out[name] = Number(value);
    else if (dataTypeID === JSON_OID || dataTypeID === JSONB) out[name] = JSON.stringify(value);
    else out[name] = value;
  }
  return out;
}

/**
 * The service's database, whichever engine runs it. The SQL must be portable (no SQLite-only functions; booleans as
 * `true`/`false` literals or parameters); tests reach rows here that no repository function exposes.
 */
export function sqlReader(service: Pick<Service, 'driver' | 'store'>): SqlReader {
  const sqlite = service.driver.sqlite;
  const query = async (sql: string, params: unknown[]): Promise<{ rows: Row[]; first: string | undefined }> => {
    if (sqlite !== null) {
      const statement = sqlite.db.prepare(sql);
      if (!statement.reader) {
        statement.run(...params);
        return { rows: [], first: undefined };
      }
      return { rows: statement.all(...params) as Row[], first: statement.columns()[0]?.name };
    }
    const result = await (service.store as PostgresStorage).pool.query(numberedPlaceholders(sql), params);
    return { rows: result.rows.map((row: Row) => asOnSqlite(row, result.fields)), first: result.fields[0]?.name };
  };
  const all = async <T>(sql: string, ...params: unknown[]) => (await query(sql, params)).rows as T[];
  const column = async <T>(sql: string, ...params: unknown[]) => {
    const { rows, first } = await query(sql, params);
    return rows.map((row) => row[first!] as T);
  };
  return {
    all,
    column,
    get: async <T>(sql: string, ...params: unknown[]) => (await all<T>(sql, ...params))[0],
    value: async <T>(sql: string, ...params: unknown[]) => (await column<T>(sql, ...params))[0],
    async count(sql, ...params) {
      const [row] = await all<{ n: number }>(sql, ...params);
      if (row?.n === undefined) throw new Error(`count() needs a query selecting one row with a column n: ${sql}`);
      return Number(row.n);
    },
    async run(sql, ...params) {
      await query(sql, params);
    },
  };
}
