// The support_grants row and its record: one mapping for both drivers.
import type { SupportGrant } from '../records/support-grants.js';

export interface SupportGrantRow {
  id: string;
  org_id: string;
  partner_id: string;
  session_id: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

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

export const supportGrantToRow = (g: SupportGrant): SupportGrantRow => ({
  id: g.id,
  org_id: g.orgId,
  partner_id: g.partnerId,
  session_id: g.sessionId,
  created_by: g.createdBy,
  created_at: g.createdAt,
  expires_at: g.expiresAt,
  revoked_at: g.revokedAt,
});
