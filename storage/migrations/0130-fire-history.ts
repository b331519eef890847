// Fire support: subscriber order in Run history, and sealed service keys (the fire fingerprint key).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 130,
  name: 'fire-history',
  up(db) {
    db.exec(`
      -- Run history lists subscriber results in firing order (subscriptions.position at fire time).
      ALTER TABLE subscriber_results ADD COLUMN position INTEGER NOT NULL DEFAULT 0;

      -- Keys the service derives for itself (e.g. the HMAC key of fire idempotency fingerprints), sealed under the
      -- master key ring: the database file alone never yields them, so a stored fingerprint cannot be brute-forced.
      CREATE TABLE sealed_service_keys (
        name TEXT PRIMARY KEY,
        sealed BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
    `);
  },
};
