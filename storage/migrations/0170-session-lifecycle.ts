// Session lifecycle (issue 13): outcome and archive facts, and the keyset indexes of the session list.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 170,
  name: 'session-lifecycle',
  up(db) {
    db.exec(`
      -- Set by a manager (canManage); null until someone records how the session ended.
      ALTER TABLE sessions ADD COLUMN outcome TEXT CHECK (outcome IN ('resolved', 'unresolved', 'escalated'));
      ALTER TABLE sessions ADD COLUMN outcome_set_by TEXT;
      ALTER TABLE sessions ADD COLUMN outcome_set_at INTEGER;
      ALTER TABLE sessions ADD COLUMN archived_at INTEGER;

      -- The list reads each visible source newest first by (created_at, id) and merges (runtime/sessions/session-list.ts):
      -- one range scan per domain the caller belongs to, one over the caller's personal chats, or one per automation.
      CREATE INDEX sessions_domain_created ON sessions(domain_id, created_at DESC, id DESC) WHERE visibility = 'domain';
      CREATE INDEX sessions_personal_created ON sessions(created_by, created_at DESC, id DESC) WHERE visibility = 'personal';
      -- Replaces sessions_automation: same leading column (automation deletes still find their sessions).
      CREATE INDEX sessions_automation_created ON sessions(automation_id, created_at DESC, id DESC);
      DROP INDEX sessions_automation;

      -- Tool calls of one session, newest first (the paged read); also what a session delete's cascade looks up.
      CREATE INDEX tool_calls_session ON tool_calls(session_id, created_at DESC, id DESC);
      -- Deleting a session looks up its support grants (ON DELETE CASCADE): without this, a scan of all of them.
      CREATE INDEX support_grants_session ON support_grants(session_id);
    `);
  },
};
