// Session list and lifecycle rows on PostgreSQL (storage/repos/session-list.repo.ts's functions, async): the same keyset pages.
import type { CreatedCursor } from '../../records/paging.js';
import type { Session, SessionListQuery, SessionOutcome } from '../../records/sessions.js';
import { pagedMessageFromRow, sessionFromRow, VISIBLE_MESSAGE_COLUMNS } from '../../rows/sessions.js';
import { TOOL_CALL_COLUMNS, toolCallFromRow } from './executions.repo.js';
import { SESSION_COLUMNS } from './sessions.repo.js';
import { keysetClause, keysetValues, many, one, scalar, write, type Queryable } from './sql.js';

/*
 * Newest first; rows strictly older than `before` in (created_at, id) order (keysetClause).
 * Parameters: $1 source, $2 status, $3 from, $4 to, $5 before_at, $6 before_id, $7 limit; the query's own from $8.
 */
const PAGE = `($2::text IS NULL OR status = $2) AND created_at >= $3 AND created_at < $4 AND ${keysetClause(5, 'desc')}`;

/** The people-facing messages of the session view (sessions.repo.ts visibleMessages), in their display order. */
const MESSAGE_ORDER = 'COALESCE(e.position, 0)';

function bind(source: string, q: SessionListQuery, ...extra: unknown[]): unknown[] {
  return [source, q.status, q.createdFrom, q.createdTo, ...keysetValues(q.before, q.limit), ...extra];
}

export function createPostgresSessionListRepo(q: Queryable) {
  const sessions = (where: string, values: unknown[]): Promise<Session[]> =>
    many(q, `SELECT ${SESSION_COLUMNS} FROM sessions WHERE ${where} AND ${PAGE}`, values, sessionFromRow);
  const remove = async (id: string): Promise<void> => {
    // Actor snapshots are keyed by execution id without a foreign key: removed with their session.
    await write(q, 'DELETE FROM actor_snapshots WHERE actor_id IN (SELECT id FROM executions WHERE session_id = $1)', [id]);
    await write(q, 'DELETE FROM sessions WHERE id = $1', [id]);
  };
  return {
    session: (id: string) => one(q, `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`, [id], sessionFromRow),
    /** Domain sessions of one domain (the caller checked membership). */
    ofDomain: (domainId: string, query: SessionListQuery) => sessions(`domain_id = $1 AND visibility = 'domain'`, bind(domainId, query)),
    /** The caller's personal chats in the organization. */
    personalOf: (userId: string, orgId: string, query: SessionListQuery) =>
      sessions(`created_by = $1 AND visibility = 'personal' AND org_id = $8`, bind(userId, query, orgId)),
    /** Domain sessions the user opened, of domains they belong to now (with personalOf: "mine"). */
    domainOpenedBy: (userId: string, orgId: string, query: SessionListQuery) =>
      sessions(
        `created_by = $1 AND visibility = 'domain' AND org_id = $8
         AND EXISTS (SELECT 1 FROM domain_memberships dm WHERE dm.domain_id = sessions.domain_id AND dm.user_id = $1)`,
        bind(userId, query, orgId),
      ),
    /** Sessions of one automation the user may see: their personal chats and domain sessions of their domains; `mine`: only those they opened. */
    ofAutomation: (automationId: string, orgId: string, userId: string, query: SessionListQuery, mine = false) =>
      sessions(
        `automation_id = $1 AND org_id = $8
         AND ((visibility = 'personal' AND created_by = $9) OR (visibility = 'domain' AND EXISTS (SELECT 1 FROM domain_memberships dm WHERE dm.domain_id = sessions.domain_id AND dm.user_id = $9)))
         AND ($10::text IS NULL OR created_by = $10)`,
        bind(automationId, query, orgId, userId, mine ? userId : null),
      ),
    /** Visible messages, newest first, strictly before the (turn position, message position) bound. */
    messagesPage: (sessionId: string, before: { turn: number; position: number } | null, limit: number) =>
      many(
        q,
        // The bounds are bigint: "no cursor" is past any integer position.
        `SELECT ${VISIBLE_MESSAGE_COLUMNS}, (SELECT name FROM users WHERE id = m.author_user_id) AS author_name, ${MESSAGE_ORDER} AS execution_position
         FROM messages m LEFT JOIN executions e ON e.id = m.execution_id
         WHERE m.session_id = $1 AND (m.role = 'user' OR (m.role = 'assistant' AND m.content != ''))
         AND (${MESSAGE_ORDER} < $2::bigint OR (${MESSAGE_ORDER} = $2::bigint AND m.position < $3::bigint))
         ORDER BY ${MESSAGE_ORDER} DESC, m.position DESC LIMIT $4`,
        [sessionId, before?.turn ?? Number.MAX_SAFE_INTEGER, before?.position ?? Number.MAX_SAFE_INTEGER, limit],
        pagedMessageFromRow,
      ),
    toolCallsPage: (sessionId: string, before: CreatedCursor | null, limit: number) =>
      many(
        q,
        `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE session_id = $1 AND ${keysetClause(2, 'desc')}`,
        [sessionId, ...keysetValues(before, limit)],
        toolCallFromRow,
      ),
    setTitle: (id: string, title: string | null, now: number): Promise<void> => write(q, 'UPDATE sessions SET title = $1, updated_at = $2 WHERE id = $3', [title, now, id]),
    setOutcome: (id: string, outcome: SessionOutcome | null, by: string | null, now: number): Promise<void> =>
      write(q, 'UPDATE sessions SET outcome = $1, outcome_set_by = $2, outcome_set_at = $3, updated_at = $4 WHERE id = $5', [
        outcome, outcome === null ? null : by, outcome === null ? null : now, now, id,
      ]),
    setArchived: (id: string, archived: boolean, now: number): Promise<void> =>
      write(q, 'UPDATE sessions SET status = $1, archived_at = $2, updated_at = $3 WHERE id = $4', [archived ? 'archived' : 'active', archived ? now : null, now, id]),
    /** Executions not yet settled (queued, running, suspended, resume queued). */
    unsettledCount: async (sessionId: string): Promise<number> =>
      (await scalar<number>(q, `SELECT COUNT(*) FROM executions WHERE session_id = $1 AND status IN ('queued', 'running', 'suspended', 'resume_queued')`, [sessionId]))!,
    /** Cascades to messages, executions (and their grants), tool calls, approvals, files and events. Atomic inside a unit of work. */
    remove,
  };
}
