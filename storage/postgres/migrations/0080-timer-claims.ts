// Timer claims across nodes (SQLite 0220): the node running a due timer's handler holds it until an expiry.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 80,
  name: 'timer-claims',
  async up(tx) {
    await tx.query(`
      -- Claimed with FOR UPDATE SKIP LOCKED (storage/postgres/repos/timers.repo.ts); past claim_expires_at any node may
      -- claim the timer again (its holder died or is slow).
      ALTER TABLE timers ADD COLUMN claimed_by text;
      ALTER TABLE timers ADD COLUMN claim_expires_at bigint;
      -- When the next held claim lapses: the scheduler wakes then to take over a dead holder's timers.
      CREATE INDEX timers_claims ON timers (claim_expires_at) WHERE fired_at IS NULL AND claim_expires_at IS NOT NULL;
    `);
  },
};
