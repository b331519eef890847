// Sessions and what they show: session rows, the ordered message log, and files tools returned.
import type { SqliteDatabase } from '../database.js';

export type SessionVisibility = 'personal' | 'domain';
export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

export interface SessionRow {
  id: string;
  org_id: string;
  domain_id: string;
  automation_id: string;
  revision: number | null;
  visibility: SessionVisibility;
  created_by: string | null;
  origin: string;
  trigger_run_id: string | null;
  status: string;
  title: string | null;
  created_at: number;
  updated_at: number;
  /** JSON of the first turn the execution side has yet to write (runtime/execution/materializer.ts); null once written. */
  pending?: string | null;
}

export interface MessageRow {
  id: string;
  session_id: string;
  execution_id: string | null;
  role: MessageRole;
  author_user_id: string | null;
  /** The text a person reads (user message, assistant answer); a short label for tool rows. */
  content: string;
  /** JSON: an assistant step's tool calls, or a tool row's result (what the model is shown next step). */
  payload: string | null;
  created_at: number;
  position: number;
}

/** A message with the position of its execution in the session (null for messages outside any execution). */
export type ConversationRow = MessageRow & { execution_position: number | null };

/** A message with its author's display name (null when the author is unknown or deleted). */
export type MessageWithAuthor = MessageRow & { author_name: string | null };

export interface FileRow {
  id: string;
  session_id: string;
  execution_id: string | null;
  name: string;
  media_type: string;
  content: Buffer;
  created_at: number;
}

export type FileMeta = Omit<FileRow, 'content'> & { size_bytes: number };

export function createSessionsRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO sessions (id, org_id, domain_id, automation_id, revision, visibility, created_by, origin, trigger_run_id, status, title, created_at, updated_at, pending)
       VALUES (@id, @org_id, @domain_id, @automation_id, @revision, @visibility, @created_by, @origin, @trigger_run_id, @status, @title, @created_at, @updated_at, @pending)`,
    ),
    // Served by the partial index sessions_pending: O(pending), however many sessions are stored.
    pendingSessions: db.prepare('SELECT id, pending FROM sessions INDEXED BY sessions_pending WHERE pending IS NOT NULL ORDER BY created_at'),
    clearPending: db.prepare('UPDATE sessions SET pending = NULL WHERE id = ? AND pending IS NOT NULL'),
    byId: db.prepare('SELECT * FROM sessions WHERE id = ?'),
    touch: db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?'),
    // Position assigned in the inserting transaction, like session event seqs: dense and gap-free.
    insertMessage: db.prepare(
      `INSERT INTO messages (id, session_id, execution_id, role, author_user_id, content, payload, created_at, position)
       SELECT @id, @session_id, @execution_id, @role, @author_user_id, @content, @payload, @created_at, COALESCE(MAX(position), 0) + 1
       FROM messages WHERE session_id = @session_id`,
    ),
    messagesOf: db.prepare(
      `SELECT m.*, u.name AS author_name FROM messages m LEFT JOIN users u ON u.id = m.author_user_id
       LEFT JOIN executions e ON e.id = m.execution_id
       WHERE m.session_id = ? AND (m.role = 'user' OR (m.role = 'assistant' AND m.content != ''))
       ORDER BY COALESCE(e.position, 0), m.position`,
    ),
    conversationOf: db.prepare(
      `SELECT m.*, e.position AS execution_position FROM messages m LEFT JOIN executions e ON e.id = m.execution_id
       WHERE m.session_id = ? ORDER BY m.position`,
    ),
    insertFile: db.prepare(
      `INSERT INTO files (id, session_id, execution_id, name, media_type, content, created_at)
       VALUES (@id, @session_id, @execution_id, @name, @media_type, @content, @created_at)`,
    ),
    file: db.prepare('SELECT * FROM files WHERE id = ? AND session_id = ?'),
    filesOf: db.prepare(
      'SELECT id, session_id, execution_id, name, media_type, created_at, length(content) AS size_bytes FROM files WHERE session_id = ? ORDER BY created_at, id',
    ),
  };

  return {
    insertSession: (row: SessionRow): void => void s.insert.run({ ...row, pending: row.pending ?? null }),
    /** Sessions whose first turn the execution side has not written yet, oldest first (boot recovery). */
    pendingSessions: () => s.pendingSessions.all() as Array<{ id: string; pending: string }>,
    /** Marks the session's first turn written; false when it already was (or the session is gone). */
    clearPending: (id: string): boolean => s.clearPending.run(id).changes > 0,
    session: (id: string) => s.byId.get(id) as SessionRow | undefined,
    touchSession: (id: string, now: number): void => void s.touch.run(now, id),
    insertMessage: (row: Omit<MessageRow, 'position'>): void => void s.insertMessage.run(row),
    /** What people read: user messages and non-empty answers, turn by turn (a queued message before its own answer), with authors. */
    visibleMessages: (sessionId: string) => s.messagesOf.all(sessionId) as MessageWithAuthor[],
    /** Every message row in order, tool rows included: the model's view of the conversation. */
    conversation: (sessionId: string) => s.conversationOf.all(sessionId) as ConversationRow[],
    insertFile: (row: FileRow): void => void s.insertFile.run(row),
    file: (sessionId: string, fileId: string) => s.file.get(fileId, sessionId) as FileRow | undefined,
    files: (sessionId: string) => s.filesOf.all(sessionId) as FileMeta[],
  };
}

export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
