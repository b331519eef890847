// Opens a pg connection pool from a postgres:// URL: application name, statement timeout, int8 as numbers, safe errors.
import pg from 'pg';

export type PostgresPool = pg.Pool;

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database?…` (libpq-style query parameters such as sslmode are honoured). */
  url: string;
  /** Shown in pg_stat_activity, so an operator can tell Switchyard's connections (and which node) apart. */
  applicationName?: string;
  /** Server-side limit per statement; a runaway query ends with an error instead of holding a connection. */
  statementTimeoutMs?: number;
  /** How long to wait for a connection (new or from the pool) before failing. */
  connectTimeoutMs?: number;
  /** Pool size. */
  max?: number;
  /** An idle pooled connection broke (server restart, failover); the pool has already dropped it. */
  onIdleError?: (error: Error) => void;
}

/** The server could not be reached or refused the login; names the host and database, never the password. */
export class PostgresUnreachableError extends Error {
  constructor(readonly target: string, cause: Error) {
    super(`PostgreSQL at ${target} is unreachable: ${cause.message}`, { cause });
    this.name = 'PostgresUnreachableError';
  }
}

/** host:port/database of a URL, for messages: the user name and password never appear. */
export function describeTarget(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(an invalid URL)';
  }
  const host = parsed.hostname || new URLSearchParams(parsed.search).get('host') || 'localhost';
  return `${host}:${parsed.port || '5432'}${parsed.pathname || '/'}`;
}

// Epoch-ms times and counters are bigint columns; pg returns int8 as strings by default (it could exceed 2^53).
// Every int8 value Switchyard stores fits a double exactly, so read it as a number and refuse one that does not.
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value ${text} does not fit a JavaScript number`);
  return value;
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** A pool; nothing connects until the first query (use connectPostgres to check the server at once). */
export function openPostgres(options: PostgresOptions): PostgresPool {
  if (!/^postgres(ql)?:\/\//.test(options.url)) throw new Error('a PostgreSQL URL starts with postgres:// or postgresql://');
  const pool = new pg.Pool({
    connectionString: options.url,
    application_name: options.applicationName ?? 'switchyard',
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    max: options.max ?? 10,
    types,
  });
  // An idle client's error is emitted on the pool; unobserved, Node would crash the process on it.
  pool.on('error', (error) => options.onIdleError?.(error));
  return pool;
}

/** A pool whose server answered one query; PostgresUnreachableError (and a closed pool) when it does not. */
export async function connectPostgres(options: PostgresOptions): Promise<PostgresPool> {
  const pool = openPostgres(options);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new PostgresUnreachableError(describeTarget(options.url), redacted(error as Error, options.url));
  }
  return pool;
}

/** The error with any occurrence of the URL's password removed from its message (drivers may echo parameters). */
export function redacted(error: Error, url: string): Error {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    // An unparsable URL has no password to hide that pg could have read either.
  }
  if (password === '' || !error.message.includes(password)) return error;
  return new Error(error.message.replaceAll(password, '***'));
}
