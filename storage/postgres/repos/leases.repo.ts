// Partner leases (`svt_`) on PostgreSQL (storage/repos/leases.repo.ts's functions, async); not the coordination leases of ../leases.ts.
import type { Lease, LeaseKind } from '../../records/leases.js';
import { insert, one, run, type Queryable } from './sql.js';

interface LeaseRow {
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

const fromRow = (r: LeaseRow): Lease => ({
  id: r.id,
  partnerId: r.partner_id,
  orgId: r.org_id,
  appId: r.app_id,
  kind: r.kind,
  partnerSubject: r.partner_subject,
  mappingId: r.mapping_id,
  tokenHash: r.token_hash,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

const toRow = (l: Lease) => ({
  id: l.id,
  partner_id: l.partnerId,
  org_id: l.orgId,
  app_id: l.appId,
  kind: l.kind,
  partner_subject: l.partnerSubject,
  mapping_id: l.mappingId,
  token_hash: l.tokenHash,
  created_at: l.createdAt,
  expires_at: l.expiresAt,
});

export function createPostgresLeasesRepo(q: Queryable) {
  return {
    insert: (lease: Lease): Promise<void> => insert(q, 'leases', toRow(lease)),
    byHash: (hash: Buffer) => one(q, 'SELECT * FROM leases WHERE token_hash = $1', [hash], fromRow),
    /** Deletes leases that expired at or before `now`; returns how many. */
    sweep: (now: number): Promise<number> => run(q, 'DELETE FROM leases WHERE expires_at <= $1', [now]),
    /** Ends every live lease minted for a worker mapping (the mapping was revoked). */
    endLeasesOfMapping: (mappingId: string, now: number): Promise<number> =>
      run(q, 'UPDATE leases SET expires_at = $1 WHERE mapping_id = $2 AND expires_at > $1', [now, mappingId]),
  };
}
