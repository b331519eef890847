// Entitlement overrides: a partner's per-customer `{ enabled }` on one agent or flow (absent: the platform default).
import type { SqliteDatabase } from '../database.js';
import type { EntitlementOverride } from '../records/entitlements.js';
import { mapOptional } from '../row-mapping.js';
import { entitlementRows, type EntitlementOverrideRow } from '../rows/entitlements.js';
import { sqliteCodec } from '../row-codec.js';

const { fromRow } = entitlementRows(sqliteCodec);

export function createEntitlementsRepo(db: SqliteDatabase) {
  const s = {
    upsert: db.prepare(
      `INSERT INTO entitlement_overrides (org_id, automation_id, enabled, updated_at) VALUES (@org_id, @automation_id, @enabled, @updated_at)
       ON CONFLICT (org_id, automation_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
    ),
    remove: db.prepare('DELETE FROM entitlement_overrides WHERE org_id = ? AND automation_id = ?'),
    get: db.prepare('SELECT * FROM entitlement_overrides WHERE org_id = ? AND automation_id = ?'),
    ofOrg: db.prepare('SELECT * FROM entitlement_overrides WHERE org_id = ?'),
  };
  return {
    set: (o: EntitlementOverride): void =>
      void s.upsert.run({ org_id: o.orgId, automation_id: o.automationId, enabled: o.enabled ? 1 : 0, updated_at: o.updatedAt }),
    clear: (orgId: string, automationId: string): boolean => s.remove.run(orgId, automationId).changes > 0,
    override: (orgId: string, automationId: string) => mapOptional(s.get.get(orgId, automationId), fromRow),
    overridesOfOrganization: (orgId: string) => (s.ofOrg.all(orgId) as EntitlementOverrideRow[]).map(fromRow),
  };
}

export type EntitlementsRepo = ReturnType<typeof createEntitlementsRepo>;
