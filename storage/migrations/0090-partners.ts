// Partner platforms: keys, apps, templates, provisioning claims, leases, workers, entitlements, support grants.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 90,
  name: 'partners',
  up(db) {
    db.exec(`
      CREATE TABLE partners (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        suspended INTEGER NOT NULL DEFAULT 0,
        provisioning_enabled INTEGER NOT NULL DEFAULT 0,
        quota_total INTEGER NOT NULL DEFAULT 0,
        quota_used INTEGER NOT NULL DEFAULT 0,
        template_id TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE partner_keys (
        id TEXT PRIMARY KEY,
        partner_id TEXT NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        key_hash BLOB NOT NULL UNIQUE,
        hint TEXT NOT NULL,
        provisioning_enabled INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;

      CREATE TABLE partner_apps (
        id TEXT PRIMARY KEY,
        partner_id TEXT NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE partner_templates (
        id TEXT PRIMARY KEY,
        partner_id TEXT NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        ref TEXT NOT NULL,
        suspended INTEGER NOT NULL DEFAULT 0,
        definition TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (partner_id, ref)
      ) STRICT;

      CREATE TABLE provisioning_claims (
        partner_key_id TEXT NOT NULL REFERENCES partner_keys(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        fingerprint BLOB NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed', 'indeterminate')),
        outcome TEXT,
        org_id TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (partner_key_id, key)
      ) STRICT;
      CREATE INDEX provisioning_claims_expiry ON provisioning_claims(expires_at);

      CREATE TABLE onboarding_runs (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        partner_id TEXT NOT NULL,
        status TEXT NOT NULL,
        steps TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE invitations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash BLOB NOT NULL UNIQUE,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE leases (
        id TEXT PRIMARY KEY,
        partner_id TEXT NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        app_id TEXT NOT NULL REFERENCES partner_apps(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('app', 'worker')),
        partner_subject TEXT,
        mapping_id TEXT,
        token_hash BLOB NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX leases_expiry ON leases(expires_at);

      CREATE TABLE worker_mappings (
        id TEXT PRIMARY KEY,
        partner_id TEXT NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        partner_subject TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        domain_roles TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
      CREATE UNIQUE INDEX worker_mappings_subject ON worker_mappings(org_id, partner_subject) WHERE revoked_at IS NULL;

      CREATE TABLE entitlement_overrides (
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        enabled INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (org_id, automation_id)
      ) STRICT;

      CREATE TABLE support_grants (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        partner_id TEXT NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        created_by TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
    `);
  },
};
