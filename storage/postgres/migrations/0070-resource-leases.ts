// Coordination leases with fencing tokens (storage/postgres/leases.ts): PostgreSQL only, one process on SQLite needs none.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 70,
  name: 'resource-leases',
  async up(tx) {
    await tx.query(`
      -- One row per named resource ever leased ("session:<id>", "scheduler", …). A release keeps the row (holder NULL)
      -- so the token only grows: a writer holding an older token is refused for as long as the resource exists.
      CREATE TABLE resource_leases (
        resource text PRIMARY KEY,
        holder text,
        token bigint NOT NULL CHECK (token > 0),
        expires_at bigint NOT NULL
      );
      -- What a node looks at when it picks up work whose owner died: leases past their expiry.
      CREATE INDEX resource_leases_expiry ON resource_leases (expires_at) WHERE holder IS NOT NULL;
    `);
  },
};
