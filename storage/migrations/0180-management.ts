// Management API columns: API key last use, automation archive state, and the indexes the paged lists read.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 180,
  name: 'management',
  up(db) {
    db.exec(`
      -- Written at most once a minute per key (runtime/auth/authenticator.ts), so it is "last used" to the minute.
      ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
      CREATE INDEX api_keys_org_created ON api_keys(org_id, created_at, id);
      CREATE INDEX api_keys_user_created ON api_keys(user_id, org_id, created_at, id);

      -- An archived automation keeps its published pointer here while published_revision is NULL, so every run
      -- path treats it as unpublished and unarchive restores it (docs/decisions.md "Archived automations").
      ALTER TABLE automations ADD COLUMN archived_at INTEGER;
      ALTER TABLE automations ADD COLUMN archived_revision INTEGER;
      CREATE INDEX automations_org_created ON automations(org_id, created_at, id);

      CREATE INDEX triggers_org_created ON triggers(org_id, created_at, id);
      CREATE INDEX articles_base_created ON articles(base_id, created_at, id);
    `);
  },
};
