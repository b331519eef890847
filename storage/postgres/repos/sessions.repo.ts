// Sessions, their ordered message log and files on PostgreSQL (storage/repos/sessions.repo.ts's functions, async).
import type { ConversationEntry, NewMessage, NewSession, PendingSession, SessionFile, SessionFileMeta, VisibleMessage } from '../../records/sessions.js';
import { postgresCodec } from '../../row-codec.js';
import {
  conversationFromRow, fileFromRow, fileMetaFromRow, fileToRow, messageToRow, pendingFromRow, sessionFromRow, sessionToRow,
  VISIBLE_MESSAGE_COLUMNS, visibleMessageFromRow,
} from '../../rows/sessions.js';
import { lockOnce } from '../batch-locks.js';
import { insert, many, one, run, write, type Queryable } from './sql.js';

/** Every column sessionFromRow reads: `pending` (a whole first turn, parsed by pg) stays unread on ordinary reads. */
export const SESSION_COLUMNS =
  'id, org_id, domain_id, automation_id, revision, visibility, created_by, origin, trigger_run_id, status, title, created_at, updated_at, outcome, outcome_set_by, outcome_set_at, archived_at';

/**
 * Holds the session's row lock (FOR NO KEY UPDATE: it does not block the foreign-key checks of other writers'
 * inserts) until the transaction ends. A position computed as MAX + 1 by the NEXT statement then sees every row a
 * concurrent transaction committed before it: under READ COMMITTED each statement takes a fresh snapshot, while
 * one statement that locked and counted would count with the snapshot it took before waiting. Race-safe inside a
 * unit of work (where the runtime writes); on the pool the lock ends with the statement.
 */
export async function lockSession(q: Queryable, sessionId: string): Promise<void> {
  // Once per batch transaction: a unit inserting several messages (or the next unit of the batch) holds it already.
  await lockOnce(q, `session ${sessionId}`, () => write(q, 'SELECT 1 FROM sessions WHERE id = $1 FOR NO KEY UPDATE', [sessionId]));
}

export function createPostgresSessionsRepo(q: Queryable) {
  return {
    insertSession: (session: NewSession): Promise<void> => insert(q, 'sessions', sessionToRow(session, postgresCodec)),
    /** Sessions whose first turn the execution side has not written yet, oldest first (boot recovery). */
    pendingSessions: (): Promise<PendingSession[]> =>
      many(q, 'SELECT id, pending FROM sessions WHERE pending IS NOT NULL ORDER BY created_at', [], (r: { id: string; pending: unknown }) =>
        pendingFromRow(r, postgresCodec)),
    /** Marks the session's first turn written; false when it already was (or the session is gone). */
    clearPending: async (id: string): Promise<boolean> => (await run(q, 'UPDATE sessions SET pending = NULL WHERE id = $1 AND pending IS NOT NULL', [id])) > 0,
    session: (id: string) => one(q, `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`, [id], sessionFromRow),
    touchSession: (id: string, now: number): Promise<void> => write(q, 'UPDATE sessions SET updated_at = $1 WHERE id = $2', [now, id]),
    /**
     * Position = the session's last + 1, dense and gap-free. messages has no unique (session_id, position) key (it
     * mirrors SQLite's schema) to catch two transactions counting the same MAX, so the session's row lock orders them.
     */
    async insertMessage(message: NewMessage): Promise<void> {
      const m = messageToRow(message);
      await lockSession(q, m.session_id);
      await write(
        q,
        `INSERT INTO messages (id, session_id, execution_id, role, author_user_id, content, payload, created_at, position)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, (SELECT COALESCE(MAX(position), 0) + 1 FROM messages WHERE session_id = $2))`,
        [m.id, m.session_id, m.execution_id, m.role, m.author_user_id, m.content, m.payload, m.created_at],
      );
    },
    /** What people read: user messages and non-empty answers, turn by turn (a queued message before its own answer), with authors. */
    visibleMessages: (sessionId: string): Promise<VisibleMessage[]> =>
      many(
        q,
        `SELECT ${VISIBLE_MESSAGE_COLUMNS}, u.name AS author_name FROM messages m LEFT JOIN users u ON u.id = m.author_user_id
         LEFT JOIN executions e ON e.id = m.execution_id
         WHERE m.session_id = $1 AND (m.role = 'user' OR (m.role = 'assistant' AND m.content != ''))
         ORDER BY COALESCE(e.position, 0), m.position`,
        [sessionId],
        visibleMessageFromRow,
      ),
    /** Every message in order, tool rows included; payloads as the very text written (json::text). */
    conversation: (sessionId: string): Promise<ConversationEntry[]> =>
      many(
        q,
        `SELECT ${VISIBLE_MESSAGE_COLUMNS}, m.payload::text AS payload, e.position AS execution_position
         FROM messages m LEFT JOIN executions e ON e.id = m.execution_id WHERE m.session_id = $1 ORDER BY m.position`,
        [sessionId],
        conversationFromRow,
      ),
    insertFile: (file: SessionFile): Promise<void> => insert(q, 'files', fileToRow(file)),
    file: (sessionId: string, fileId: string) => one(q, 'SELECT * FROM files WHERE id = $1 AND session_id = $2', [fileId, sessionId], fileFromRow),
    files: (sessionId: string): Promise<SessionFileMeta[]> =>
      many(
        q,
        `SELECT id, session_id, execution_id, name, media_type, created_at, length(content) AS size_bytes FROM files
         WHERE session_id = $1 ORDER BY created_at, id COLLATE "C"`,
        [sessionId],
        fileMetaFromRow,
      ),
  };
}
