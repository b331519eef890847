// Automations: agents (draft setup, immutable revisions, bindings) and flows (immutable versions).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 30,
  name: 'automations',
  up(db) {
    db.exec(`
      CREATE TABLE automations (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id TEXT NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('agent', 'flow')),
        name TEXT NOT NULL,
        description TEXT,
        published_revision INTEGER,
        entitled_by_default INTEGER NOT NULL DEFAULT 1,
        created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX automations_domain ON automations(domain_id);
      CREATE INDEX automations_org ON automations(org_id);

      CREATE TABLE agent_setups (
        automation_id TEXT PRIMARY KEY REFERENCES automations(id) ON DELETE CASCADE,
        principles TEXT NOT NULL DEFAULT '',
        procedure TEXT NOT NULL DEFAULT '',
        model TEXT NOT NULL DEFAULT 'builtin:procedure',
        approval_tools TEXT NOT NULL DEFAULT '[]',
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE agent_bindings (
        automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        integration_id TEXT NOT NULL,
        policy TEXT NOT NULL CHECK (policy IN ('service', 'caller_preferred', 'caller_required')),
        PRIMARY KEY (automation_id, integration_id)
      ) STRICT;

      -- Immutable published revisions of an agent (setup + belt frozen at publish time).
      CREATE TABLE agent_revisions (
        automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        revision INTEGER NOT NULL,
        setup TEXT NOT NULL,
        belt TEXT NOT NULL,
        change_note TEXT,
        published_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (automation_id, revision)
      ) STRICT;

      -- Immutable published versions of a flow's step graph; automations.published_revision points at one.
      CREATE TABLE flow_versions (
        automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        definition TEXT NOT NULL,
        bindings TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        PRIMARY KEY (automation_id, version)
      ) STRICT;
    `);
  },
};
