// Entitlement overrides on PostgreSQL (storage/repos/entitlements.repo.ts's functions, async).
import type { EntitlementOverride } from '../../records/entitlements.js';
import { many, one, run, write, type Queryable } from './sql.js';
import { entitlementRows } from '../../rows/entitlements.js';
import { postgresCodec } from '../../row-codec.js';

const { fromRow } = entitlementRows(postgresCodec);

export function createPostgresEntitlementsRepo(q: Queryable) {
  return {
    set: (o: EntitlementOverride): Promise<void> =>
      write(
        q,
        `INSERT INTO entitlement_overrides (org_id, automation_id, enabled, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (org_id, automation_id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at`,
        [o.orgId, o.automationId, o.enabled, o.updatedAt],
      ),
    clear: async (orgId: string, automationId: string): Promise<boolean> =>
      (await run(q, 'DELETE FROM entitlement_overrides WHERE org_id = $1 AND automation_id = $2', [orgId, automationId])) > 0,
    override: (orgId: string, automationId: string) =>
      one(q, 'SELECT * FROM entitlement_overrides WHERE org_id = $1 AND automation_id = $2', [orgId, automationId], fromRow),
    overridesOfOrganization: (orgId: string) => many(q, 'SELECT * FROM entitlement_overrides WHERE org_id = $1', [orgId], fromRow),
  };
}
