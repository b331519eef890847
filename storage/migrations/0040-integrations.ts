// Integration catalog and the organizations' connections (secret material encrypted).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 40,
  name: 'integrations',
  up(db) {
    db.exec(`
      -- org_id NULL: visible to every organization; otherwise private to that organization.
      CREATE TABLE integrations (
        id TEXT PRIMARY KEY,
        org_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        manifest TEXT NOT NULL,
        available INTEGER NOT NULL DEFAULT 1,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE connections (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id TEXT REFERENCES domains(id) ON DELETE CASCADE,
        integration_id TEXT NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
        secret_sealed BLOB,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX connections_org ON connections(org_id, integration_id);
    `);
  },
};
