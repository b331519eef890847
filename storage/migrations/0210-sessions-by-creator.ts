// The session list's "mine" filter (issue 14 item 3): domain sessions by the person who opened them, newest first.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 210,
  name: 'sessions-by-creator',
  up(db) {
    db.exec(`
      -- Personal chats already have sessions_personal_created; together the two answer "mine" with range scans.
      CREATE INDEX sessions_domain_creator ON sessions(created_by, created_at DESC, id DESC) WHERE visibility = 'domain';
    `);
  },
};
