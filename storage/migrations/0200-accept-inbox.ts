// One durable row per accept (issue 12 item 3): a fire's run row carries its claim and session plan, a session row its first turn.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 200,
  name: 'accept-inbox',
  up(db) {
    db.exec(`
      -- The sessions a fire started, as a JSON array of session starts, until the execution side writes their
      -- sessions, executions and messages (runtime/execution/materializer.ts); NULL once written.
      ALTER TABLE trigger_runs ADD COLUMN pending TEXT;
      CREATE INDEX trigger_runs_pending ON trigger_runs(created_at) WHERE pending IS NOT NULL;

      -- The fire idempotency claim lives on the run it answered: key, HMAC fingerprint, stored 202 body, expiry.
      -- claim_key is cleared when the claim expires and is swept (the run stays in Run history); while set, the
      -- unique index makes "one firing per key" a constraint.
      ALTER TABLE trigger_runs ADD COLUMN claim_key TEXT;
      ALTER TABLE trigger_runs ADD COLUMN claim_fingerprint BLOB;
      ALTER TABLE trigger_runs ADD COLUMN claim_response TEXT;
      ALTER TABLE trigger_runs ADD COLUMN claim_expires_at INTEGER;
      CREATE UNIQUE INDEX trigger_runs_claim ON trigger_runs(org_id, claim_key) WHERE claim_key IS NOT NULL;
      CREATE INDEX trigger_runs_claim_expiry ON trigger_runs(claim_expires_at) WHERE claim_key IS NOT NULL;
      UPDATE trigger_runs SET claim_key = c.key, claim_fingerprint = c.fingerprint, claim_response = c.response, claim_expires_at = c.expires_at
        FROM idempotency_claims c WHERE c.run_id = trigger_runs.id AND c.scope = trigger_runs.org_id AND c.state = 'completed';
      DROP TABLE idempotency_claims;

      -- An opened session's first turn (execution id, message, pinned revision) until the execution side writes
      -- its execution and message rows; NULL once written.
      ALTER TABLE sessions ADD COLUMN pending TEXT;
      CREATE INDEX sessions_pending ON sessions(created_at) WHERE pending IS NOT NULL;
    `);
  },
};
