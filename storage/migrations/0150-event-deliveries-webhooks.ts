// Inbound event deliveries (dedupe + log), outbound webhook attempt log and run notices, webhook lookup indexes.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 150,
  name: 'event-deliveries-webhooks',
  up(db) {
    db.exec(`
      -- One row per inbound delivery an event trigger accepted, keyed by its webhook-id: a redelivery of the same
      -- message is answered from here and never fires twice. Filter misses are kept as 'skipped' with their reason.
      CREATE TABLE event_deliveries (
        trigger_id TEXT NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
        message_id TEXT NOT NULL,
        org_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('fired', 'skipped')),
        reason TEXT,
        run_id TEXT,
        received_at INTEGER NOT NULL,
        PRIMARY KEY (trigger_id, message_id)
      ) STRICT;
      CREATE INDEX event_deliveries_recent ON event_deliveries(trigger_id, received_at DESC);

      -- Every attempt of an outbound webhook delivery (the delivery log); never a response body.
      CREATE TABLE webhook_attempts (
        delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        attempted_at INTEGER NOT NULL,
        status_code INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      ) STRICT;

      -- A trigger run whose work finished and was announced to the organization's endpoints: the primary key makes
      -- the announcement happen once however many settlements race to it.
      CREATE TABLE webhook_run_notices (
        run_id TEXT PRIMARY KEY REFERENCES trigger_runs(id) ON DELETE CASCADE,
        org_id TEXT NOT NULL,
        settled_at INTEGER NOT NULL
      ) STRICT;

      ALTER TABLE webhook_deliveries ADD COLUMN run_id TEXT;
      CREATE INDEX webhook_endpoints_org ON webhook_endpoints(org_id, created_at);
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, created_at DESC, id DESC);
      CREATE INDEX triggers_type ON triggers(type) WHERE type = 'schedule';
    `);
  },
};
