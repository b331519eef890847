// Partner API: the provisioning-claim projection gains 'released', onboarding runs name their template, workers record provisioned people.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 140,
  name: 'partner-api',
  up(db) {
    db.exec(`
      -- The claim itself is the provisioning-claim actor (actor_snapshots); this row is its queryable projection.
      -- Rebuilt because 0090's CHECK lacked 'released'; nothing references the table, so drop-and-create is safe.
      CREATE TABLE provisioning_claims_next (
        partner_key_id TEXT NOT NULL REFERENCES partner_keys(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        actor_id TEXT NOT NULL UNIQUE,
        fingerprint BLOB NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed', 'released', 'indeterminate')),
        status_code INTEGER,
        org_id TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (partner_key_id, key)
      ) STRICT;
      DROP TABLE provisioning_claims;
      ALTER TABLE provisioning_claims_next RENAME TO provisioning_claims;
      CREATE INDEX provisioning_claims_expiry ON provisioning_claims(expires_at);

      ALTER TABLE onboarding_runs ADD COLUMN template_id TEXT;
      ALTER TABLE onboarding_runs ADD COLUMN error TEXT;
      CREATE INDEX onboarding_runs_org ON onboarding_runs(org_id, created_at);

      CREATE INDEX invitations_user ON invitations(user_id);

      -- 1 when the mapping created the person (revoking it then also withdraws the person's memberships).
      ALTER TABLE worker_mappings ADD COLUMN provisioned_user INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE worker_mappings ADD COLUMN updated_at INTEGER;
      CREATE INDEX worker_mappings_org ON worker_mappings(org_id, created_at);

      CREATE INDEX leases_mapping ON leases(mapping_id) WHERE mapping_id IS NOT NULL;
      CREATE INDEX support_grants_org ON support_grants(org_id, created_at);
      CREATE INDEX entitlement_overrides_org ON entitlement_overrides(org_id);
    `);
  },
};
