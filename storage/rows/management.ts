// The member row of management's pages (users joined with memberships): one mapping for both drivers.
import type { Member } from '../records/management.js';
import type { OrgRole } from '../records/tenancy.js';
import type { RowCodec } from '../row-codec.js';

export interface MemberRow {
  user_id: string;
  email: string;
  name: string;
  role: OrgRole;
  created_at: number;
  disabled_at: number | null;
  /** 0 until the person redeemed an invitation (no password yet). */
  has_password: number | boolean;
  user_disabled: number | boolean;
}

/** The mappings for one driver's codec (storage/row-codec.ts). */
export function managementRows(codec: RowCodec) {
  return {
    memberFromRow: (r: MemberRow): Member => ({
      userId: r.user_id,
      email: r.email,
      name: r.name,
      role: r.role,
      createdAt: r.created_at,
      disabledAt: r.disabled_at,
      hasPassword: codec.bool(r.has_password),
      userDisabled: codec.bool(r.user_disabled),
    }),
  };
}
