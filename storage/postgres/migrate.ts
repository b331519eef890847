// Applies pending PostgreSQL migrations in one transaction under an advisory lock, recorded in switchyard_schema.
import type pg from 'pg';
import { FutureSchemaError, latestVersion } from '../migrate.js';
import { POSTGRES_MIGRATIONS, type PostgresMigration } from './migrations/index.js';

export { FutureSchemaError };

/**
 * Held for the migration transaction (released by COMMIT/ROLLBACK): nodes starting together queue here, and the
 * second one then finds nothing pending. A fixed 64-bit key ("SYMIGRAT" in ASCII) no other lock of ours uses.
 */
export const MIGRATION_LOCK_KEY = '6005916555199791444';

const VERSION_TABLE = `
  CREATE TABLE IF NOT EXISTS switchyard_schema (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at bigint NOT NULL
  )`;

/** The newest version recorded in the database (0 when none is). */
export async function schemaVersion(client: Pick<pg.ClientBase, 'query'>): Promise<number> {
  const exists = await client.query<{ present: boolean }>("SELECT to_regclass('switchyard_schema') IS NOT NULL AS present");
  if (!exists.rows[0]!.present) return 0;
  const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM switchyard_schema');
  return rows[0]!.version ?? 0;
}

/**
 * Runs every migration newer than the database's version, all or nothing; returns the versions applied. Refuses
 * (FutureSchemaError, nothing changed) a database that a newer build has already migrated past what this one knows.
 */
export async function migratePostgres(pool: pg.Pool, migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS): Promise<number[]> {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const known = latestVersion(sorted);
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    await client.query(VERSION_TABLE);
    const current = await schemaVersion(client);
    if (current > known) throw new FutureSchemaError(current, known);
    const pending = sorted.filter((m) => m.version > current);
    for (const migration of pending) {
      await migration.up(client);
      await client.query(
        'INSERT INTO switchyard_schema (version, name, applied_at) VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)',
        [migration.version, migration.name],
      );
    }
    await client.query('COMMIT');
    return pending.map((m) => m.version);
  } catch (error) {
    // A failed ROLLBACK means the connection itself is gone: drop it instead of returning it to the pool.
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
