// Partner platforms: keys, apps, templates, provisioning claims, onboarding, leases, workers, entitlements, support (SQLite 0090, 0140).
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 50,
  name: 'partners',
  async up(tx) {
    await tx.query(`
      CREATE TABLE partners (
        id text PRIMARY KEY,
        name text NOT NULL,
        suspended boolean NOT NULL DEFAULT false,
        provisioning_enabled boolean NOT NULL DEFAULT false,
        quota_total integer NOT NULL DEFAULT 0,
        quota_used integer NOT NULL DEFAULT 0,
        template_id text,
        created_at bigint NOT NULL
      );

      CREATE TABLE partner_keys (
        id text PRIMARY KEY,
        partner_id text NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        key_hash bytea NOT NULL UNIQUE,
        hint text NOT NULL,
        provisioning_enabled boolean NOT NULL DEFAULT true,
        created_at bigint NOT NULL,
        revoked_at bigint
      );

      CREATE TABLE partner_apps (
        id text PRIMARY KEY,
        partner_id text NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        name text NOT NULL,
        created_at bigint NOT NULL
      );

      CREATE TABLE partner_templates (
        id text PRIMARY KEY,
        partner_id text NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        ref text NOT NULL,
        suspended boolean NOT NULL DEFAULT false,
        definition json NOT NULL,
        created_at bigint NOT NULL,
        UNIQUE (partner_id, ref)
      );

      -- The queryable projection of a provisioning-claim actor (its snapshot is in actor_snapshots).
      CREATE TABLE provisioning_claims (
        partner_key_id text NOT NULL REFERENCES partner_keys(id) ON DELETE CASCADE,
        key text NOT NULL,
        actor_id text NOT NULL UNIQUE,
        fingerprint bytea NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress', 'completed', 'released', 'indeterminate')),
        status_code integer,
        org_id text,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (partner_key_id, key)
      );
      CREATE INDEX provisioning_claims_expiry ON provisioning_claims (expires_at);

      CREATE TABLE onboarding_runs (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        partner_id text NOT NULL,
        status text NOT NULL,
        steps jsonb NOT NULL DEFAULT '[]',
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        template_id text,
        error text
      );
      CREATE INDEX onboarding_runs_org ON onboarding_runs (org_id, created_at);

      CREATE TABLE invitations (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        expires_at bigint NOT NULL,
        used_at bigint,
        created_at bigint NOT NULL
      );
      CREATE INDEX invitations_user ON invitations (user_id);

      -- Partner credentials (svt_), not the coordination leases of storage/postgres/leases.ts.
      CREATE TABLE leases (
        id text PRIMARY KEY,
        partner_id text NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        app_id text NOT NULL REFERENCES partner_apps(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('app', 'worker')),
        partner_subject text,
        mapping_id text,
        token_hash bytea NOT NULL UNIQUE,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX leases_expiry ON leases (expires_at);
      CREATE INDEX leases_mapping ON leases (mapping_id) WHERE mapping_id IS NOT NULL;

      CREATE TABLE worker_mappings (
        id text PRIMARY KEY,
        partner_id text NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        partner_subject text NOT NULL,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        domain_roles jsonb NOT NULL DEFAULT '[]',
        created_at bigint NOT NULL,
        revoked_at bigint,
        provisioned_user boolean NOT NULL DEFAULT false,
        updated_at bigint
      );
      CREATE UNIQUE INDEX worker_mappings_subject ON worker_mappings (org_id, partner_subject) WHERE revoked_at IS NULL;
      CREATE INDEX worker_mappings_org ON worker_mappings (org_id, created_at);

      CREATE TABLE entitlement_overrides (
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        automation_id text NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        enabled boolean NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (org_id, automation_id)
      );
      CREATE INDEX entitlement_overrides_org ON entitlement_overrides (org_id);

      CREATE TABLE support_grants (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        partner_id text NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        created_by text,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        revoked_at bigint
      );
      CREATE INDEX support_grants_org ON support_grants (org_id, created_at);
      CREATE INDEX support_grants_session ON support_grants (session_id);
    `);
  },
};
