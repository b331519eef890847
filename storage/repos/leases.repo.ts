// Partner leases (`svt_`, one hour): app leases and named-worker leases, looked up by the SHA-256 of the secret.
import type { SqliteDatabase } from '../database.js';
import type { Lease, LeaseKind } from '../records/leases.js';
import { mapOptional } from '../row-mapping.js';
import { leaseFromRow as fromRow, leaseToRow as toRow } from '../rows/leases.js';

export type { LeaseKind } from '../records/leases.js';

export function createLeasesRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO leases (id, partner_id, org_id, app_id, kind, partner_subject, mapping_id, token_hash, created_at, expires_at)
       VALUES (@id, @partner_id, @org_id, @app_id, @kind, @partner_subject, @mapping_id, @token_hash, @created_at, @expires_at)`,
    ),
    byHash: db.prepare('SELECT * FROM leases WHERE token_hash = ?'),
    sweep: db.prepare('DELETE FROM leases WHERE expires_at <= ?'),
    endOfMapping: db.prepare('UPDATE leases SET expires_at = ? WHERE mapping_id = ? AND expires_at > ?'),
  };
  return {
    insert: (lease: Lease): void => void s.insert.run(toRow(lease)),
    byHash: (hash: Buffer) => mapOptional(s.byHash.get(hash), fromRow),
    /** Deletes leases that expired at or before `now`; returns how many. */
    sweep: (now: number): number => s.sweep.run(now).changes,
    /** Ends every live lease minted for a worker mapping (the mapping was revoked). */
    endLeasesOfMapping: (mappingId: string, now: number): number => s.endOfMapping.run(now, mappingId, now).changes,
  };
}

export type LeasesRepo = ReturnType<typeof createLeasesRepo>;
