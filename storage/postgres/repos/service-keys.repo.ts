// Sealed service keys on PostgreSQL (storage/repos/service-keys.repo.ts's functions, async).
import type { SealedServiceKey } from '../../records/service-keys.js';
import { insertUnlessConflict, one, write, type Queryable } from './sql.js';
import { serviceKeyFromRow as fromRow, serviceKeyToRow as toRow } from '../../rows/service-keys.js';

export function createPostgresServiceKeysRepo(q: Queryable) {
  return {
    get: (name: string) => one(q, 'SELECT * FROM sealed_service_keys WHERE name = $1', [name], fromRow),
    /** False when a key of that name already exists (nothing written); two nodes minting at once: one wins. */
    insert: (key: SealedServiceKey): Promise<boolean> => insertUnlessConflict(q, 'sealed_service_keys', toRow(key), '(name)'),
    replace: (name: string, sealed: Buffer, now: number): Promise<void> =>
      write(q, 'UPDATE sealed_service_keys SET sealed = $1, updated_at = $2 WHERE name = $3', [sealed, now, name]),
  };
}
