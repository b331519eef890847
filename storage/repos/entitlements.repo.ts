// Entitlement overrides: a partner's per-customer `{ enabled }` on one agent or flow (absent: the platform default).
import type { SqliteDatabase } from '../database.js';

export interface EntitlementOverrideRow {
  org_id: string;
  automation_id: string;
  enabled: number;
  updated_at: number;
}

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
    set: (row: EntitlementOverrideRow): void => void s.upsert.run(row),
    clear: (orgId: string, automationId: string): boolean => s.remove.run(orgId, automationId).changes > 0,
    override: (orgId: string, automationId: string) => s.get.get(orgId, automationId) as EntitlementOverrideRow | undefined,
    overridesOfOrganization: (orgId: string) => s.ofOrg.all(orgId) as EntitlementOverrideRow[],
  };
}

export type EntitlementsRepo = ReturnType<typeof createEntitlementsRepo>;
