// Sessions and their audit trail: messages, executions (turns), tool calls, approvals, files, events.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 60,
  name: 'sessions',
  up(db) {
    db.exec(`
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id TEXT NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
        automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        revision INTEGER,
        visibility TEXT NOT NULL CHECK (visibility IN ('personal', 'domain')),
        created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        origin TEXT NOT NULL DEFAULT 'api',
        trigger_run_id TEXT,
        status TEXT NOT NULL DEFAULT 'active',
        title TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX sessions_automation ON sessions(automation_id);

      CREATE TABLE executions (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'suspended', 'resume_queued', 'completed', 'failed', 'rejected')),
        input TEXT NOT NULL DEFAULT '{}',
        error_code TEXT,
        error_message TEXT,
        created_by TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        settled_at INTEGER,
        UNIQUE (session_id, position)
      ) STRICT;
      CREATE INDEX executions_unsettled ON executions(status) WHERE status IN ('queued', 'running', 'resume_queued');

      CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        execution_id TEXT REFERENCES executions(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
        author_user_id TEXT,
        content TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX messages_session ON messages(session_id, created_at);

      CREATE TABLE tool_calls (
        id TEXT PRIMARY KEY,
        execution_id TEXT NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        tool TEXT NOT NULL,
        args TEXT NOT NULL,
        edited INTEGER NOT NULL DEFAULT 0,
        identity TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'awaiting_approval', 'running', 'succeeded', 'failed', 'rejected')),
        result TEXT,
        error_code TEXT,
        created_at INTEGER NOT NULL,
        finished_at INTEGER,
        UNIQUE (execution_id, step)
      ) STRICT;

      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        execution_id TEXT NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        tool_call_id TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('turn', 'run', 'confirmation')),
        routing TEXT NOT NULL DEFAULT 'policy' CHECK (routing IN ('policy', 'user')),
        tool TEXT,
        args TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        initiated_by TEXT,
        decided_by TEXT,
        comment TEXT,
        edited INTEGER NOT NULL DEFAULT 0,
        edited_args TEXT,
        created_at INTEGER NOT NULL,
        decided_at INTEGER
      ) STRICT;
      CREATE INDEX approvals_pending ON approvals(org_id, status) WHERE status = 'pending';
      CREATE INDEX approvals_session ON approvals(session_id);

      CREATE TABLE files (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        execution_id TEXT REFERENCES executions(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        media_type TEXT NOT NULL,
        content BLOB NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE session_events (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        ts INTEGER NOT NULL,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
