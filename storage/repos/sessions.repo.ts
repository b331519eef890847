// Sessions and what they show: session rows, the ordered message log, and files tools returned.
import type { SqliteDatabase } from '../database.js';
import { jsonColumn, mapOptional } from '../row-mapping.js';
import type {
  ConversationEntry, MessageRole, NewMessage, NewSession, PendingSession, Session, SessionFile, SessionFileMeta,
  SessionOutcome, SessionVisibility, VisibleMessage,
} from '../records/sessions.js';

interface SessionRow {
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
  pending: string | null;
  outcome: SessionOutcome | null;
  outcome_set_by: string | null;
  outcome_set_at: number | null;
  archived_at: number | null;
}

interface MessageRow {
  id: string;
  session_id: string;
  execution_id: string | null;
  role: MessageRole;
  author_user_id: string | null;
  content: string;
  payload: string | null;
  created_at: number;
  position: number;
}

interface FileRow {
  id: string;
  session_id: string;
  execution_id: string | null;
  name: string;
  media_type: string;
  content: Buffer;
  created_at: number;
}

/** Exported for the session list's pages (storage-internal): one mapping for every read of the sessions table. */
export const sessionFromRow = (r: SessionRow): Session => ({
  id: r.id,
  orgId: r.org_id,
  domainId: r.domain_id,
  automationId: r.automation_id,
  revision: r.revision,
  visibility: r.visibility,
  createdBy: r.created_by,
  origin: r.origin,
  triggerRunId: r.trigger_run_id,
  status: r.status,
  title: r.title,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  outcome: r.outcome ?? null,
  outcomeSetBy: r.outcome_set_by ?? null,
  outcomeSetAt: r.outcome_set_at ?? null,
  archivedAt: r.archived_at ?? null,
});

/** The insert's parameters: lifecycle columns start NULL, so they are not written. */
const sessionToRow = (n: NewSession): Omit<SessionRow, 'outcome' | 'outcome_set_by' | 'outcome_set_at' | 'archived_at'> => ({
  id: n.id,
  org_id: n.orgId,
  domain_id: n.domainId,
  automation_id: n.automationId,
  revision: n.revision,
  visibility: n.visibility,
  created_by: n.createdBy,
  origin: n.origin,
  trigger_run_id: n.triggerRunId,
  status: n.status,
  title: n.title,
  created_at: n.createdAt,
  updated_at: n.updatedAt,
  pending: n.pending === undefined ? null : JSON.stringify(n.pending),
});

const messageToRow = (m: NewMessage): Omit<MessageRow, 'position'> => ({
  id: m.id,
  session_id: m.sessionId,
  execution_id: m.executionId,
  role: m.role,
  author_user_id: m.authorUserId,
  content: m.content,
  payload: m.payload,
  created_at: m.createdAt,
});

const conversationFromRow = (r: MessageRow & { execution_position: number | null }): ConversationEntry => ({
  id: r.id,
  sessionId: r.session_id,
  executionId: r.execution_id,
  role: r.role,
  authorUserId: r.author_user_id,
  content: r.content,
  payload: r.payload,
  createdAt: r.created_at,
  position: r.position,
  executionPosition: r.execution_position,
});

/** Exported for the session list's message pages (storage-internal). */
export const visibleMessageFromRow = (r: Omit<MessageRow, 'payload'> & { author_name: string | null }): VisibleMessage => ({
  id: r.id,
  sessionId: r.session_id,
  executionId: r.execution_id,
  role: r.role,
  authorUserId: r.author_user_id,
  content: r.content,
  createdAt: r.created_at,
  position: r.position,
  authorName: r.author_name,
});

/** The columns visibleMessageFromRow reads (the payload stays unread: people never see it). */
export const VISIBLE_MESSAGE_COLUMNS = 'm.id, m.session_id, m.execution_id, m.role, m.author_user_id, m.content, m.created_at, m.position';

const fileFromRow = (r: FileRow): SessionFile => ({
  id: r.id,
  sessionId: r.session_id,
  executionId: r.execution_id,
  name: r.name,
  mediaType: r.media_type,
  content: r.content,
  createdAt: r.created_at,
});

const fileToRow = (f: SessionFile): FileRow => ({
  id: f.id,
  session_id: f.sessionId,
  execution_id: f.executionId,
  name: f.name,
  media_type: f.mediaType,
  content: f.content,
  created_at: f.createdAt,
});

const fileMetaFromRow = (r: Omit<FileRow, 'content'> & { size_bytes: number }): SessionFileMeta => ({
  id: r.id,
  sessionId: r.session_id,
  executionId: r.execution_id,
  name: r.name,
  mediaType: r.media_type,
  createdAt: r.created_at,
  sizeBytes: r.size_bytes,
});

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
    insertSession: (session: NewSession): void => void s.insert.run(sessionToRow(session)),
    /** Sessions whose first turn the execution side has not written yet, oldest first (boot recovery). */
    pendingSessions: (): PendingSession[] =>
      (s.pendingSessions.all() as Array<{ id: string; pending: string }>).map((r) => ({ id: r.id, pending: jsonColumn(r.pending) })),
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
