// The worker_mappings row and its record: one mapping for both drivers.
import type { WorkerDomainRole, WorkerMapping } from '../records/workers.js';
import type { RowCodec } from '../row-codec.js';

export interface WorkerMappingRow {
  id: string;
  partner_id: string;
  org_id: string;
  partner_subject: string;
  user_id: string;
  /** JSON: `[{ domainId, role }]` as vouched. */
  domain_roles: unknown;
  /** 1 when the mapping created the person. */
  provisioned_user: number | boolean;
  created_at: number;
  updated_at: number | null;
  revoked_at: number | null;
}

/** The mappings for one driver's codec (storage/row-codec.ts). */
export function workerRows(codec: RowCodec) {
  return {
    fromRow: (r: WorkerMappingRow): WorkerMapping => ({
      id: r.id,
      partnerId: r.partner_id,
      orgId: r.org_id,
      partnerSubject: r.partner_subject,
      userId: r.user_id,
      domainRoles: codec.jsonArray<WorkerDomainRole>(r.domain_roles),
      provisionedUser: codec.bool(r.provisioned_user),
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      revokedAt: r.revoked_at,
    }),

    toRow: (m: WorkerMapping): WorkerMappingRow => ({
      id: m.id,
      partner_id: m.partnerId,
      org_id: m.orgId,
      partner_subject: m.partnerSubject,
      user_id: m.userId,
      domain_roles: codec.toJson(m.domainRoles),
      provisioned_user: codec.toBool(m.provisionedUser),
      created_at: m.createdAt,
      updated_at: m.updatedAt,
      revoked_at: m.revokedAt,
    }),
  };
}
