// Tenancy and credentials on PostgreSQL: SQLite's 0010 tenancy and 0020 credentials (+ 0180/0190 columns) as of 0210.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 10,
  name: 'tenancy-credentials',
  async up(tx) {
    await tx.query(`
      CREATE TABLE organizations (
        id text PRIMARY KEY,
        name text NOT NULL,
        partner_id text,
        client_segment text,
        direct_login_disabled boolean NOT NULL DEFAULT false,
        rollout_flags jsonb NOT NULL DEFAULT '{}',
        created_at bigint NOT NULL,
        suspended_at bigint
      );
      CREATE UNIQUE INDEX organizations_segment ON organizations (client_segment) WHERE client_segment IS NOT NULL;
      CREATE INDEX organizations_partner ON organizations (partner_id, created_at, id) WHERE partner_id IS NOT NULL;

      -- SQLite's email is COLLATE NOCASE UNIQUE; here uniqueness is on lower(email), and lookups compare lower(email).
      CREATE TABLE users (
        id text PRIMARY KEY,
        email text NOT NULL,
        name text NOT NULL,
        password_hash text,
        disabled boolean NOT NULL DEFAULT false,
        created_at bigint NOT NULL
      );
      CREATE UNIQUE INDEX users_email ON users (lower(email));

      CREATE TABLE org_memberships (
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at bigint NOT NULL,
        disabled_at bigint,
        PRIMARY KEY (org_id, user_id)
      );
      CREATE INDEX org_memberships_user ON org_memberships (user_id);

      CREATE TABLE domains (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        approval_policy jsonb NOT NULL DEFAULT '{}',
        created_at bigint NOT NULL
      );
      CREATE INDEX domains_org ON domains (org_id);

      CREATE TABLE domain_memberships (
        domain_id text NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('owner', 'editor', 'operator', 'viewer')),
        created_at bigint NOT NULL,
        PRIMARY KEY (domain_id, user_id)
      );
      CREATE INDEX domain_memberships_user ON domain_memberships (user_id);

      -- Stable manifest refs -> ids, so applying the same manifest twice creates nothing new.
      CREATE TABLE manifest_refs (
        scope text NOT NULL,
        ref text NOT NULL,
        entity text NOT NULL,
        entity_id text NOT NULL,
        PRIMARY KEY (scope, ref)
      );

      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        key_hash bytea NOT NULL UNIQUE,
        hint text NOT NULL,
        created_at bigint NOT NULL,
        revoked_at bigint,
        last_used_at bigint
      );
      CREATE INDEX api_keys_org_created ON api_keys (org_id, created_at, id);
      CREATE INDEX api_keys_user_created ON api_keys (user_id, org_id, created_at, id);

      CREATE TABLE user_tokens (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX user_tokens_expiry ON user_tokens (expires_at);

      CREATE TABLE console_sessions (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        org_id text REFERENCES organizations(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
    `);
  },
};
