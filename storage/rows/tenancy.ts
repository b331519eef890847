// The organizations, users and domains rows and their records: one mapping for both drivers.
import type { Domain, Organization, User } from '../records/tenancy.js';
import type { RowCodec } from '../row-codec.js';

export interface OrganizationRow {
  id: string;
  name: string;
  partner_id: string | null;
  client_segment: string | null;
  direct_login_disabled: number | boolean;
  rollout_flags: unknown;
  created_at: number;
  /** Set while its partner suspended it (migration 0190). */
  suspended_at: number | null;
}

export interface UserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  disabled: number | boolean;
  created_at: number;
}

export interface DomainRow {
  id: string;
  org_id: string;
  name: string;
  approval_policy: unknown;
  created_at: number;
}

/** The mappings for one driver's codec (storage/row-codec.ts). */
export function tenancyRows(codec: RowCodec) {
  return {
    organizationFromRow: (r: OrganizationRow): Organization => ({
      id: r.id,
      name: r.name,
      partnerId: r.partner_id,
      clientSegment: r.client_segment,
      directLoginDisabled: codec.bool(r.direct_login_disabled),
      rolloutFlags: codec.jsonObject(r.rollout_flags),
      createdAt: r.created_at,
      suspendedAt: r.suspended_at ?? null,
    }),

    /** The insert's parameters: a new organization is never suspended, so `suspendedAt` is not written. */
    organizationToRow: (o: Organization): Omit<OrganizationRow, 'suspended_at'> => ({
      id: o.id,
      name: o.name,
      partner_id: o.partnerId,
      client_segment: o.clientSegment,
      direct_login_disabled: codec.toBool(o.directLoginDisabled),
      rollout_flags: codec.toJson(o.rolloutFlags),
      created_at: o.createdAt,
    }),

    userFromRow: (r: UserRow): User => ({
      id: r.id,
      email: r.email,
      name: r.name,
      passwordHash: r.password_hash,
      disabled: codec.bool(r.disabled),
      createdAt: r.created_at,
    }),

    userToRow: (u: User): UserRow => ({
      id: u.id,
      email: u.email,
      name: u.name,
      password_hash: u.passwordHash,
      disabled: codec.toBool(u.disabled),
      created_at: u.createdAt,
    }),

    domainFromRow: (r: DomainRow): Domain => ({
      id: r.id,
      orgId: r.org_id,
      name: r.name,
      approvalPolicy: codec.jsonObject(r.approval_policy),
      createdAt: r.created_at,
    }),

    domainToRow: (d: Domain): DomainRow => ({
      id: d.id,
      org_id: d.orgId,
      name: d.name,
      approval_policy: codec.toJson(d.approvalPolicy),
      created_at: d.createdAt,
    }),
  };
}
