// Sealed service keys (table sealed_service_keys): secrets the service mints for itself, sealed by the master key ring.
import type { SqliteDatabase } from '../database.js';
import type { SealedServiceKey } from '../records/service-keys.js';
import { mapOptional } from '../row-mapping.js';
import { serviceKeyFromRow as fromRow } from '../rows/service-keys.js';

export function createServiceKeysRepo(db: SqliteDatabase) {
  const s = {
    get: db.prepare('SELECT * FROM sealed_service_keys WHERE name = ?'),
    insert: db.prepare(
      `INSERT INTO sealed_service_keys (name, sealed, created_at, updated_at) VALUES (@name, @sealed, @created_at, @updated_at)
       ON CONFLICT (name) DO NOTHING`,
    ),
    replace: db.prepare('UPDATE sealed_service_keys SET sealed = ?, updated_at = ? WHERE name = ?'),
  };
  return {
    get: (name: string) => mapOptional(s.get.get(name), fromRow),
    /** False when a key of that name already exists (nothing written). */
    insert: (key: SealedServiceKey): boolean =>
      s.insert.run({ name: key.name, sealed: key.sealed, created_at: key.createdAt, updated_at: key.updatedAt }).changes > 0,
    /** Rewrapped after a master-key rotation, or replaced when the old one can no longer be opened. */
    replace: (name: string, sealed: Buffer, now: number): void => void s.replace.run(sealed, now, name),
  };
}

export type ServiceKeysRepo = ReturnType<typeof createServiceKeysRepo>;
