// Triggers, their subscriptions, and the run history of every firing.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 50,
  name: 'triggers',
  up(db) {
    db.exec(`
      CREATE TABLE triggers (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id TEXT NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
        type TEXT NOT NULL CHECK (type IN ('schedule', 'api', 'event')),
        name TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1,
        config TEXT NOT NULL DEFAULT '{}',
        endpoint_secret_sealed BLOB,
        created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX triggers_org ON triggers(org_id);

      CREATE TABLE subscriptions (
        trigger_id TEXT NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
        automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        position INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (trigger_id, automation_id)
      ) STRICT;

      CREATE TABLE trigger_runs (
        id TEXT PRIMARY KEY,
        trigger_id TEXT NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
        org_id TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('api', 'schedule', 'event')),
        fired_by TEXT,
        outcome TEXT NOT NULL CHECK (outcome IN ('accepted', 'succeeded', 'partial', 'failed', 'skipped')),
        unused_credential_integrations TEXT NOT NULL DEFAULT '[]',
        idempotency_key TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX trigger_runs_trigger ON trigger_runs(trigger_id, created_at DESC, id DESC);

      CREATE TABLE subscriber_results (
        run_id TEXT NOT NULL REFERENCES trigger_runs(id) ON DELETE CASCADE,
        automation_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('started', 'skipped', 'failed')),
        code TEXT,
        reason TEXT,
        session_id TEXT,
        PRIMARY KEY (run_id, automation_id)
      ) STRICT;
    `);
  },
};
