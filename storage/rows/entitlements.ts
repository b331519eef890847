// The entitlement_overrides row and its record: one mapping for both drivers (`enabled` through the codec).
import type { EntitlementOverride } from '../records/entitlements.js';
import type { RowCodec } from '../row-codec.js';

export interface EntitlementOverrideRow {
  org_id: string;
  automation_id: string;
  /** SQLite 0/1, PostgreSQL boolean. */
  enabled: number | boolean;
  updated_at: number;
}

export const entitlementRows = (codec: RowCodec) => ({
  fromRow: (r: EntitlementOverrideRow): EntitlementOverride => ({
    orgId: r.org_id,
    automationId: r.automation_id,
    enabled: codec.bool(r.enabled),
    updatedAt: r.updated_at,
  }),
});
