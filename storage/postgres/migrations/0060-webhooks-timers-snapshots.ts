// Outbound webhooks and their logs, durable timers, actor snapshots, sealed service keys (SQLite 0100, 0130, 0150).
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 60,
  name: 'webhooks-timers-snapshots',
  async up(tx) {
    await tx.query(`
      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        url text NOT NULL,
        secret_sealed bytea NOT NULL,
        events jsonb NOT NULL DEFAULT '[]',
        active boolean NOT NULL DEFAULT true,
        created_by text,
        created_at bigint NOT NULL
      );
      CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id, created_at);

      -- payload is text: every attempt sends (and signs) the same bytes.
      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_type text NOT NULL,
        payload text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at bigint,
        last_status integer,
        last_error text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        run_id text
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

      CREATE TABLE webhook_attempts (
        delivery_id text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        attempted_at bigint NOT NULL,
        status_code integer,
        error text,
        duration_ms integer NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      );

      -- The primary key makes a run's announcement happen once however many settlements (or nodes) race to it.
      CREATE TABLE webhook_run_notices (
        run_id text PRIMARY KEY REFERENCES trigger_runs(id) ON DELETE CASCADE,
        org_id text NOT NULL,
        settled_at bigint NOT NULL
      );

      CREATE TABLE timers (
        id text PRIMARY KEY,
        kind text NOT NULL,
        target_id text NOT NULL,
        due_at bigint NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}',
        created_at bigint NOT NULL,
        fired_at bigint
      );
      CREATE INDEX timers_due ON timers (due_at) WHERE fired_at IS NULL;
      CREATE UNIQUE INDEX timers_target ON timers (kind, target_id) WHERE fired_at IS NULL;

      -- json: a machine's context may hold a user's text (see sessions.pending).
      -- rowid: SQLite's implicit rowid made explicit, the stable key activePage pages by (kept by upserts).
      CREATE TABLE actor_snapshots (
        actor_id text PRIMARY KEY,
        rowid bigint GENERATED ALWAYS AS IDENTITY,
        machine text NOT NULL,
        machine_version integer NOT NULL,
        status text NOT NULL,
        snapshot json NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX actor_snapshots_active ON actor_snapshots (machine, status) WHERE status = 'active';

      -- Keys the service derives for itself, sealed under the master key ring (never in clear in the database).
      CREATE TABLE sealed_service_keys (
        name text PRIMARY KEY,
        sealed bytea NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
    `);
  },
};
