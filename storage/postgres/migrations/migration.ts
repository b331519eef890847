// The shape of one PostgreSQL schema migration (storage/postgres/migrate.ts applies them).
import type pg from 'pg';

/** What a migration may use: the one connection the runner's transaction holds. */
export type PostgresTx = Pick<pg.ClientBase, 'query'>;

export interface PostgresMigration {
  /** Steps of 10 so a fix can slot in between; PostgreSQL's versions are its own, not SQLite's. */
  version: number;
  name: string;
  up(tx: PostgresTx): Promise<void>;
}
