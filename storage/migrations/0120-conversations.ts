// Columns the turn engine needs: per-execution revision, budget counters and grant facts; message order; tool-call links.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 120,
  name: 'conversations',
  up(db) {
    db.exec(`
      -- The published revision a turn runs (pinned when it is queued), its entry point, and budget counters that
      -- survive suspensions and restarts. Grant facts are ids and times only: the material is in caller_grants.
      ALTER TABLE executions ADD COLUMN revision INTEGER;
      ALTER TABLE executions ADD COLUMN entry TEXT NOT NULL DEFAULT 'message';
      ALTER TABLE executions ADD COLUMN steps_used INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE executions ADD COLUMN tokens_used INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE executions ADD COLUMN run_ms INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE executions ADD COLUMN started_at INTEGER;
      ALTER TABLE executions ADD COLUMN grant_integration_ids TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE executions ADD COLUMN grant_expires_at INTEGER;
      CREATE INDEX executions_session_open ON executions(session_id, position)
        WHERE status IN ('queued', 'running', 'suspended', 'resume_queued');

      -- Dense per-session order (created_at ties under one clock tick); payload holds the model-facing parts:
      -- an assistant step's tool calls, or a tool message's result.
      ALTER TABLE messages ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE messages ADD COLUMN payload TEXT;
      CREATE INDEX messages_session_position ON messages(session_id, position);

      -- call_ref is the model's id for the call (matched by its tool message); approval_id links a gated call.
      ALTER TABLE tool_calls ADD COLUMN call_ref TEXT;
      ALTER TABLE tool_calls ADD COLUMN integration_id TEXT;
      ALTER TABLE tool_calls ADD COLUMN readonly INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tool_calls ADD COLUMN approval_id TEXT;
      ALTER TABLE tool_calls ADD COLUMN error_message TEXT;
      CREATE UNIQUE INDEX tool_calls_ref ON tool_calls(execution_id, call_ref);

      CREATE INDEX files_session ON files(session_id);
    `);
  },
};
