// Tenancy: organizations, users, memberships, domains (the permission boundary).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 10,
  name: 'tenancy',
  up(db) {
    db.exec(`
      CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        partner_id TEXT,
        client_segment TEXT,
        direct_login_disabled INTEGER NOT NULL DEFAULT 0,
        rollout_flags TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX organizations_segment ON organizations(client_segment) WHERE client_segment IS NOT NULL;

      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL COLLATE NOCASE UNIQUE,
        name TEXT NOT NULL,
        password_hash TEXT,
        disabled INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE org_memberships (
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at INTEGER NOT NULL,
        PRIMARY KEY (org_id, user_id)
      ) STRICT;
      CREATE INDEX org_memberships_user ON org_memberships(user_id);

      CREATE TABLE domains (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        approval_policy TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX domains_org ON domains(org_id);

      CREATE TABLE domain_memberships (
        domain_id TEXT NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'operator', 'viewer')),
        created_at INTEGER NOT NULL,
        PRIMARY KEY (domain_id, user_id)
      ) STRICT;
      CREATE INDEX domain_memberships_user ON domain_memberships(user_id);

      -- Stable manifest refs -> ids, so applying the same manifest twice creates nothing new.
      CREATE TABLE manifest_refs (
        scope TEXT NOT NULL,
        ref TEXT NOT NULL,
        entity TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        PRIMARY KEY (scope, ref)
      ) STRICT;
    `);
  },
};
