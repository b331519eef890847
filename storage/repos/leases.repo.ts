// Partner leases (`svt_`, one hour): app leases and named-worker leases, looked up by the SHA-256 of the secret.
import type { SqliteDatabase } from '../database.js';

export type LeaseKind = 'app' | 'worker';

export interface LeaseRow {
  id: string;
  partner_id: string;
  org_id: string;
  app_id: string;
  kind: LeaseKind;
  partner_subject: string | null;
  mapping_id: string | null;
  token_hash: Buffer;
  created_at: number;
  expires_at: number;
}

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
    insert: (row: LeaseRow): void => void s.insert.run(row),
    byHash: (hash: Buffer) => s.byHash.get(hash) as LeaseRow | undefined,
    /** Deletes leases that expired at or before `now`; returns how many. */
    sweep: (now: number): number => s.sweep.run(now).changes,
    /** Ends every live lease minted for a worker mapping (the mapping was revoked). */
    endLeasesOfMapping: (mappingId: string, now: number): number => s.endOfMapping.run(now, mappingId, now).changes,
  };
}

export type LeasesRepo = ReturnType<typeof createLeasesRepo>;
