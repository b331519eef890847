// Outbound webhooks, durable timers (deadlines that survive restarts) and actor snapshots.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 100,
  name: 'webhooks-timers-snapshots',
  up(db) {
    db.exec(`
      CREATE TABLE webhook_endpoints (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        secret_sealed BLOB NOT NULL,
        events TEXT NOT NULL DEFAULT '[]',
        active INTEGER NOT NULL DEFAULT 1,
        created_by TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE webhook_deliveries (
        id TEXT PRIMARY KEY,
        endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_type TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        last_status INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';

      CREATE TABLE timers (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        target_id TEXT NOT NULL,
        due_at INTEGER NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        fired_at INTEGER
      ) STRICT;
      CREATE INDEX timers_due ON timers(due_at) WHERE fired_at IS NULL;
      CREATE UNIQUE INDEX timers_target ON timers(kind, target_id) WHERE fired_at IS NULL;

      CREATE TABLE actor_snapshots (
        actor_id TEXT PRIMARY KEY,
        machine TEXT NOT NULL,
        machine_version INTEGER NOT NULL,
        status TEXT NOT NULL,
        snapshot TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX actor_snapshots_active ON actor_snapshots(machine, status) WHERE status = 'active';
    `);
  },
};
