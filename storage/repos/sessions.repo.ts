// Sessions and what they show: session rows, the ordered message log, and files tools returned.
import type { SqliteDatabase } from '../database.js';
import { mapOptional } from '../row-mapping.js';
import { sqliteCodec } from '../row-codec.js';
import type { ConversationEntry, NewMessage, NewSession, PendingSession, SessionFile, SessionFileMeta, VisibleMessage } from '../records/sessions.js';
import {
  conversationFromRow, fileFromRow, fileMetaFromRow, fileToRow, messageToRow, pendingFromRow, sessionFromRow, sessionToRow,
  VISIBLE_MESSAGE_COLUMNS, visibleMessageFromRow,
} from '../rows/sessions.js';

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
      `SELECT ${VISIBLE_MESSAGE_COLUMNS}, u.name AS author_name FROM messages m LEFT JOIN users u ON u.id = m.author_user_id
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
    insertSession: (session: NewSession): void => void s.insert.run(sessionToRow(session, sqliteCodec)),
    /** Sessions whose first turn the execution side has not written yet, oldest first (boot recovery). */
    pendingSessions: (): PendingSession[] =>
      (s.pendingSessions.all() as Array<{ id: string; pending: string }>).map((r) => pendingFromRow(r, sqliteCodec)),
    /** Marks the session's first turn written; false when it already was (or the session is gone). */
    clearPending: (id: string): boolean => s.clearPending.run(id).changes > 0,
    session: (id: string) => mapOptional(s.byId.get(id), sessionFromRow),
    touchSession: (id: string, now: number): void => void s.touch.run(now, id),
    insertMessage: (message: NewMessage): void => void s.insertMessage.run(messageToRow(message)),
    /** What people read: user messages and non-empty answers, turn by turn (a queued message before its own answer), with authors. */
    visibleMessages: (sessionId: string): VisibleMessage[] => (s.messagesOf.all(sessionId) as Parameters<typeof visibleMessageFromRow>[0][]).map(visibleMessageFromRow),
    /** Every message in order, tool rows included: the model's view of the conversation. */
    conversation: (sessionId: string): ConversationEntry[] =>
      (s.conversationOf.all(sessionId) as Parameters<typeof conversationFromRow>[0][]).map(conversationFromRow),
    insertFile: (file: SessionFile): void => void s.insertFile.run(fileToRow(file)),
    file: (sessionId: string, fileId: string) => mapOptional(s.file.get(fileId, sessionId), fileFromRow),
    files: (sessionId: string): SessionFileMeta[] => (s.filesOf.all(sessionId) as Parameters<typeof fileMetaFromRow>[0][]).map(fileMetaFromRow),
  };
}

export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
