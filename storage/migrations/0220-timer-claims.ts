// Timer claims (issue 16 item 4): the node running a due timer's handler holds it until an expiry, so one node runs it.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 220,
  name: 'timer-claims',
  up(db) {
    db.exec(`
      -- A claim: who runs the handler and until when; past claim_expires_at any node may claim the timer again (its
      -- holder died or is slow). NULL until first claimed. One process is never contended, but the columns match PostgreSQL's.
      ALTER TABLE timers ADD COLUMN claimed_by TEXT;
      ALTER TABLE timers ADD COLUMN claim_expires_at INTEGER;
      -- When the next held claim lapses: the scheduler wakes then to take over a dead holder's timers.
      CREATE INDEX timers_claims ON timers(claim_expires_at) WHERE fired_at IS NULL AND claim_expires_at IS NOT NULL;
    `);
  },
};
