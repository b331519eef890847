// Automations, the integration catalog and connections, triggers and their run history (SQLite 0030–0050, 0130–0200).
import type { PostgresMigration } from './migration.js';

// json (verbatim text, key order kept) for what a user or an upstream wrote; jsonb for the service's own state (docs/decisions.md).
export const migration: PostgresMigration = {
  version: 20,
  name: 'automations-triggers',
  async up(tx) {
    await tx.query(`
      CREATE TABLE automations (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id text NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('agent', 'flow')),
        name text NOT NULL,
        description text,
        published_revision integer,
        entitled_by_default boolean NOT NULL DEFAULT true,
        created_by text REFERENCES users(id) ON DELETE SET NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        archived_at bigint,
        archived_revision integer
      );
      CREATE INDEX automations_domain ON automations (domain_id);
      CREATE INDEX automations_org ON automations (org_id);
      CREATE INDEX automations_org_created ON automations (org_id, created_at, id);

      CREATE TABLE agent_setups (
        automation_id text PRIMARY KEY REFERENCES automations(id) ON DELETE CASCADE,
        principles text NOT NULL DEFAULT '',
        procedure text NOT NULL DEFAULT '',
        model text NOT NULL DEFAULT 'builtin:procedure',
        approval_tools jsonb NOT NULL DEFAULT '[]',
        updated_at bigint NOT NULL
      );

      CREATE TABLE agent_bindings (
        automation_id text NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        integration_id text NOT NULL,
        policy text NOT NULL CHECK (policy IN ('service', 'caller_preferred', 'caller_required')),
        PRIMARY KEY (automation_id, integration_id)
      );

      CREATE TABLE agent_revisions (
        automation_id text NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        revision integer NOT NULL,
        setup json NOT NULL,
        belt json NOT NULL,
        change_note text,
        published_by text REFERENCES users(id) ON DELETE SET NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (automation_id, revision)
      );

      CREATE TABLE flow_versions (
        automation_id text NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        version integer NOT NULL,
        definition json NOT NULL,
        bindings json NOT NULL DEFAULT '{}',
        created_at bigint NOT NULL,
        PRIMARY KEY (automation_id, version)
      );

      -- org_id NULL: visible to every organization; otherwise private to that organization.
      CREATE TABLE integrations (
        id text PRIMARY KEY,
        org_id text REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        manifest json NOT NULL,
        available boolean NOT NULL DEFAULT true,
        updated_at bigint NOT NULL
      );

      CREATE TABLE connections (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id text REFERENCES domains(id) ON DELETE CASCADE,
        integration_id text NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
        secret_sealed bytea,
        created_at bigint NOT NULL,
        rotated_at bigint
      );
      CREATE INDEX connections_org ON connections (org_id, integration_id);

      CREATE TABLE triggers (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id text NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('schedule', 'api', 'event')),
        name text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        config json NOT NULL DEFAULT '{}',
        endpoint_secret_sealed bytea,
        created_by text REFERENCES users(id) ON DELETE SET NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX triggers_org ON triggers (org_id);
      CREATE INDEX triggers_org_created ON triggers (org_id, created_at, id);
      CREATE INDEX triggers_type ON triggers (type) WHERE type = 'schedule';

      CREATE TABLE subscriptions (
        trigger_id text NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
        automation_id text NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        position integer NOT NULL DEFAULT 0,
        PRIMARY KEY (trigger_id, automation_id)
      );

      -- One row per accepted fire (issue 12): results in firing order, the pending session plan until the execution
      -- side materializes it (json: it carries the fire's input), and the idempotency claim. claim_response is the stored 202 body, replayed byte for
      -- byte, so it is text, not a re-serialized document.
      CREATE TABLE trigger_runs (
        id text PRIMARY KEY,
        trigger_id text NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
        org_id text NOT NULL,
        source text NOT NULL CHECK (source IN ('api', 'schedule', 'event')),
        fired_by text,
        outcome text NOT NULL CHECK (outcome IN ('accepted', 'succeeded', 'partial', 'failed', 'skipped')),
        unused_credential_integrations jsonb NOT NULL DEFAULT '[]',
        idempotency_key text,
        created_at bigint NOT NULL,
        results jsonb NOT NULL DEFAULT '[]',
        pending json,
        claim_key text,
        claim_fingerprint bytea,
        claim_response text,
        claim_expires_at bigint
      );
      CREATE INDEX trigger_runs_trigger ON trigger_runs (trigger_id, created_at DESC, id DESC);
      CREATE INDEX trigger_runs_pending ON trigger_runs (created_at) WHERE pending IS NOT NULL;
      -- "One firing per key" is this constraint, on every node at once.
      CREATE UNIQUE INDEX trigger_runs_claim ON trigger_runs (org_id, claim_key) WHERE claim_key IS NOT NULL;
      CREATE INDEX trigger_runs_claim_expiry ON trigger_runs (claim_expires_at) WHERE claim_key IS NOT NULL;

      -- Inbound event deliveries by webhook-id: a redelivery is answered from here and never fires twice.
      CREATE TABLE event_deliveries (
        trigger_id text NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
        message_id text NOT NULL,
        org_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('fired', 'skipped')),
        reason text,
        run_id text,
        received_at bigint NOT NULL,
        PRIMARY KEY (trigger_id, message_id)
      );
      CREATE INDEX event_deliveries_recent ON event_deliveries (trigger_id, received_at DESC);
    `);
  },
};
