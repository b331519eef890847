// The partner_leases row (`svt_` leases) and its record: one mapping for both drivers.
import type { Lease, LeaseKind } from '../records/leases.js';

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

export const leaseFromRow = (r: LeaseRow): Lease => ({
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

export const leaseToRow = (l: Lease): LeaseRow => ({
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
