// Support grants: a customer admin lets its partner read one session, until expiry or revocation.
import type { SqliteDatabase } from '../database.js';
import type { SupportGrant } from '../records/support-grants.js';
import { mapOptional } from '../row-mapping.js';

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

const toRow = (g: SupportGrant): SupportGrantRow => ({
  id: g.id,
  org_id: g.orgId,
  partner_id: g.partnerId,
  session_id: g.sessionId,
  created_by: g.createdBy,
  created_at: g.createdAt,
  expires_at: g.expiresAt,
  revoked_at: g.revokedAt,
});

export function createSupportGrantsRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO support_grants (id, org_id, partner_id, session_id, created_by, created_at, expires_at, revoked_at)
       VALUES (@id, @org_id, @partner_id, @session_id, @created_by, @created_at, @expires_at, @revoked_at)`,
    ),
    byId: db.prepare('SELECT * FROM support_grants WHERE id = ?'),
    revoke: db.prepare('UPDATE support_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
  };
  return {
    insert: (grant: SupportGrant): void => void s.insert.run(toRow(grant)),
    grant: (id: string) => mapOptional(s.byId.get(id), supportGrantFromRow),
    revoke: (id: string, now: number): boolean => s.revoke.run(now, id).changes > 0,
  };
}

export type SupportGrantsRepo = ReturnType<typeof createSupportGrantsRepo>;
