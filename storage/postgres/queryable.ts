// What PostgreSQL repositories and leases run their statements on: a pool, or the one client holding a transaction.
import type pg from 'pg';

/**
 * Pool and client both fit, so the same repository code runs autocommitted on a pool or inside a unit of work bound
 * to its transaction's client. It must come from openPostgres (storage/postgres/connection.ts): bigint columns
 * (epoch-ms times, counts) are read as numbers by that pool's type parser.
 */
export type Queryable = Pick<pg.ClientBase, 'query'>;
