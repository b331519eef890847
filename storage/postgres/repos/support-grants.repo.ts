// Support grants on PostgreSQL (storage/repos/support-grants.repo.ts's functions, async).
import type { SupportGrant } from '../../records/support-grants.js';
import { insert, one, run, type Queryable } from './sql.js';

interface SupportGrantRow {
  id: string;
  org_id: string;
  partner_id: string;
  session_id: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

/** Exported for the management repo's grant pages (storage-internal). */
export const supportGrantFromRow = (r: SupportGrantRow): SupportGrant => ({
  id: r.id,
  orgId: r.org_id,
  partnerId: r.partner_id,
  sessionId: r.session_id,
  createdBy: r.created_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

const toRow = (g: SupportGrant) => ({
  id: g.id,
  org_id: g.orgId,
  partner_id: g.partnerId,
  session_id: g.sessionId,
  created_by: g.createdBy,
  created_at: g.createdAt,
  expires_at: g.expiresAt,
  revoked_at: g.revokedAt,
});

export function createPostgresSupportGrantsRepo(q: Queryable) {
  return {
    insert: (grant: SupportGrant): Promise<void> => insert(q, 'support_grants', toRow(grant)),
    grant: (id: string) => one(q, 'SELECT * FROM support_grants WHERE id = $1', [id], supportGrantFromRow),
    revoke: async (id: string, now: number): Promise<boolean> =>
      (await run(q, 'UPDATE support_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id])) > 0,
  };
}
