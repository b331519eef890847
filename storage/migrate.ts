// Applies the numbered migrations in one transaction keyed on PRAGMA user_version.
import type { SqliteDatabase } from './database.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export class FutureSchemaError extends Error {
  constructor(readonly found: number, readonly known: number) {
    super(`database schema version ${found} is newer than this build knows (${known}); refusing to open it`);
  }
}

export function latestVersion(migrations: readonly Pick<Migration, 'version'>[] = MIGRATIONS): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/** Runs every migration newer than the file's user_version; all or nothing. Returns the versions applied. */
export function migrate(db: SqliteDatabase, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const known = latestVersion(sorted);
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > known) throw new FutureSchemaError(current, known);
  const pending = sorted.filter((m) => m.version > current);
  if (pending.length === 0) return [];
  db.transaction(() => {
    for (const migration of pending) migration.up(db);
    db.pragma(`user_version = ${known}`);
  }).immediate();
  return pending.map((m) => m.version);
}
