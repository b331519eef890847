// Idempotency claims (fire) and caller grants (encrypted caller credentials bound to one execution).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 70,
  name: 'claims-and-grants',
  up(db) {
    db.exec(`
      CREATE TABLE idempotency_claims (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint BLOB NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
        status_code INTEGER,
        response TEXT,
        run_id TEXT,
        owner TEXT NOT NULL,
        lease_until INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (scope, key)
      ) STRICT;
      CREATE INDEX idempotency_claims_expiry ON idempotency_claims(expires_at);

      CREATE TABLE caller_grants (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL,
        execution_id TEXT NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        key_id TEXT NOT NULL,
        wrapped_key BLOB NOT NULL,
        iv BLOB NOT NULL,
        tag BLOB NOT NULL,
        ciphertext BLOB NOT NULL,
        integration_ids TEXT NOT NULL,
        expires_at INTEGER,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX caller_grants_execution ON caller_grants(execution_id);
      CREATE INDEX caller_grants_expiry ON caller_grants(expires_at) WHERE expires_at IS NOT NULL;
    `);
  },
};
