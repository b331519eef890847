// Sessions and their trail: executions, messages, tool calls, approvals, files, events, caller grants (SQLite 0060–0200).
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 30,
  name: 'sessions',
  async up(tx) {
    await tx.query(`
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id text NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
        automation_id text NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
        revision integer,
        visibility text NOT NULL CHECK (visibility IN ('personal', 'domain')),
        created_by text REFERENCES users(id) ON DELETE SET NULL,
        origin text NOT NULL DEFAULT 'api',
        trigger_run_id text,
        status text NOT NULL DEFAULT 'active',
        title text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        outcome text CHECK (outcome IN ('resolved', 'unresolved', 'escalated')),
        outcome_set_by text,
        outcome_set_at bigint,
        archived_at bigint,
        -- An opened session's first turn until the execution side writes its rows; NULL once written. json, not jsonb:
        -- it carries the user's message, and jsonb cannot hold a NUL character in a string.
        pending json
      );
      CREATE INDEX sessions_domain_created ON sessions (domain_id, created_at DESC, id DESC) WHERE visibility = 'domain';
      CREATE INDEX sessions_personal_created ON sessions (created_by, created_at DESC, id DESC) WHERE visibility = 'personal';
      CREATE INDEX sessions_domain_creator ON sessions (created_by, created_at DESC, id DESC) WHERE visibility = 'domain';
      CREATE INDEX sessions_automation_created ON sessions (automation_id, created_at DESC, id DESC);
      CREATE INDEX sessions_pending ON sessions (created_at) WHERE pending IS NOT NULL;

      CREATE TABLE executions (
        id text PRIMARY KEY,
        session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        position integer NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'running', 'suspended', 'resume_queued', 'completed', 'failed', 'rejected')),
        input json NOT NULL DEFAULT '{}',
        error_code text,
        error_message text,
        created_by text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        settled_at bigint,
        revision integer,
        entry text NOT NULL DEFAULT 'message',
        steps_used integer NOT NULL DEFAULT 0,
        tokens_used bigint NOT NULL DEFAULT 0,
        run_ms bigint NOT NULL DEFAULT 0,
        started_at bigint,
        grant_integration_ids jsonb NOT NULL DEFAULT '[]',
        grant_expires_at bigint,
        UNIQUE (session_id, position)
      );
      CREATE INDEX executions_unsettled ON executions (status) WHERE status IN ('queued', 'running', 'resume_queued');
      CREATE INDEX executions_session_open ON executions (session_id, position)
        WHERE status IN ('queued', 'running', 'suspended', 'resume_queued');

      CREATE TABLE messages (
        id text PRIMARY KEY,
        session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        execution_id text REFERENCES executions(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
        author_user_id text,
        content text NOT NULL,
        created_at bigint NOT NULL,
        position integer NOT NULL DEFAULT 0,
        payload json
      );
      CREATE INDEX messages_session ON messages (session_id, created_at);
      CREATE INDEX messages_session_position ON messages (session_id, position);

      CREATE TABLE tool_calls (
        id text PRIMARY KEY,
        execution_id text NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        step integer NOT NULL,
        tool text NOT NULL,
        args json NOT NULL,
        edited boolean NOT NULL DEFAULT false,
        identity text,
        status text NOT NULL CHECK (status IN ('pending', 'awaiting_approval', 'running', 'succeeded', 'failed', 'rejected')),
        result json,
        error_code text,
        created_at bigint NOT NULL,
        finished_at bigint,
        call_ref text,
        integration_id text,
        readonly boolean NOT NULL DEFAULT false,
        approval_id text,
        error_message text,
        UNIQUE (execution_id, step)
      );
      CREATE UNIQUE INDEX tool_calls_ref ON tool_calls (execution_id, call_ref);
      CREATE INDEX tool_calls_session ON tool_calls (session_id, created_at DESC, id DESC);

      CREATE TABLE approvals (
        id text PRIMARY KEY,
        org_id text NOT NULL,
        session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        execution_id text NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        tool_call_id text,
        kind text NOT NULL CHECK (kind IN ('turn', 'run', 'confirmation')),
        routing text NOT NULL DEFAULT 'policy' CHECK (routing IN ('policy', 'user')),
        tool text,
        args json,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        initiated_by text,
        decided_by text,
        comment text,
        edited boolean NOT NULL DEFAULT false,
        edited_args json,
        created_at bigint NOT NULL,
        decided_at bigint
      );
      CREATE INDEX approvals_pending ON approvals (org_id, status) WHERE status = 'pending';
      CREATE INDEX approvals_session ON approvals (session_id);

      CREATE TABLE files (
        id text PRIMARY KEY,
        session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        execution_id text REFERENCES executions(id) ON DELETE CASCADE,
        name text NOT NULL,
        media_type text NOT NULL,
        content bytea NOT NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX files_session ON files (session_id);

      -- payload is text: a replay (Last-Event-ID) sends the very bytes the live stream sent.
      CREATE TABLE session_events (
        session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        ts bigint NOT NULL,
        type text NOT NULL,
        payload text NOT NULL,
        PRIMARY KEY (session_id, seq)
      );

      CREATE TABLE caller_grants (
        id text PRIMARY KEY,
        org_id text NOT NULL,
        execution_id text NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        key_id text NOT NULL,
        wrapped_key bytea NOT NULL,
        iv bytea NOT NULL,
        tag bytea NOT NULL,
        ciphertext bytea NOT NULL,
        integration_ids jsonb NOT NULL,
        expires_at bigint,
        created_at bigint NOT NULL
      );
      CREATE INDEX caller_grants_execution ON caller_grants (execution_id);
      CREATE INDEX caller_grants_expiry ON caller_grants (expires_at) WHERE expires_at IS NOT NULL;
    `);
  },
};
