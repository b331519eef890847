// Session list and lifecycle rows: keyset pages of sessions, messages and tool calls; title, outcome, archive, delete.
import type { SqliteDatabase } from '../database.js';
import { mapOptional } from '../row-mapping.js';
import type { SessionListQuery, SessionOutcome } from '../records/sessions.js';
import { pagedMessageFromRow, sessionFromRow, VISIBLE_MESSAGE_COLUMNS, type PagedMessageRow, type SessionRow } from '../rows/sessions.js';
import { toolCallFromRow } from './executions.repo.js';

type ToolCallRow = Parameters<typeof toolCallFromRow>[0];

export type { SessionListQuery } from '../records/sessions.js';

/** Newest first; rows strictly older than `before` ((created_at, id) order); optional status and created range. */
const PAGE = `(@status IS NULL OR status = @status) AND created_at >= @from AND created_at < @to
  AND created_at <= @before_at AND (created_at < @before_at OR id < @before_id)
  ORDER BY created_at DESC, id DESC LIMIT @limit`;

/** The people-facing messages of the session view (sessions.repo.ts visibleMessages), in their display order. */
const MESSAGE_ORDER = 'COALESCE(e.position, 0)';

export function createSessionListRepo(db: SqliteDatabase) {
  const s = {
    // Each statement matches one partial index exactly (the `visibility = …` term must be literal for that).
    ofDomain: db.prepare(`SELECT * FROM sessions WHERE domain_id = @source AND visibility = 'domain' AND ${PAGE}`),
    personalOf: db.prepare(`SELECT * FROM sessions WHERE created_by = @source AND visibility = 'personal' AND org_id = @org AND ${PAGE}`),
    // Domain sessions the person opened, in domains they still belong to (rule 3 holds for "mine" too).
    domainOpenedBy: db.prepare(
      `SELECT * FROM sessions WHERE created_by = @source AND visibility = 'domain' AND org_id = @org
       AND EXISTS (SELECT 1 FROM domain_memberships dm WHERE dm.domain_id = sessions.domain_id AND dm.user_id = @source)
       AND ${PAGE}`,
    ),
    ofAutomation: db.prepare(
      `SELECT * FROM sessions WHERE automation_id = @source AND org_id = @org
       AND ((visibility = 'personal' AND created_by = @user) OR (visibility = 'domain' AND EXISTS (SELECT 1 FROM domain_memberships dm WHERE dm.domain_id = sessions.domain_id AND dm.user_id = @user)))
       AND (@creator IS NULL OR created_by = @creator)
       AND ${PAGE}`,
    ),
    messagesPage: db.prepare(
      `SELECT ${VISIBLE_MESSAGE_COLUMNS}, (SELECT name FROM users WHERE id = m.author_user_id) AS author_name, ${MESSAGE_ORDER} AS execution_position
       FROM messages m LEFT JOIN executions e ON e.id = m.execution_id
       WHERE m.session_id = @session AND (m.role = 'user' OR (m.role = 'assistant' AND m.content != ''))
       AND (${MESSAGE_ORDER} < @before_turn OR (${MESSAGE_ORDER} = @before_turn AND m.position < @before_position))
       ORDER BY ${MESSAGE_ORDER} DESC, m.position DESC LIMIT @limit`,
    ),
    toolCallsPage: db.prepare(
      `SELECT * FROM tool_calls WHERE session_id = @session AND created_at <= @before_at AND (created_at < @before_at OR id < @before_id)
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    ),
    byId: db.prepare('SELECT * FROM sessions WHERE id = ?'),
    setTitle: db.prepare('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?'),
    setOutcome: db.prepare('UPDATE sessions SET outcome = ?, outcome_set_by = ?, outcome_set_at = ?, updated_at = ? WHERE id = ?'),
    setArchived: db.prepare('UPDATE sessions SET status = ?, archived_at = ?, updated_at = ? WHERE id = ?'),
    unsettled: db.prepare(`SELECT COUNT(*) FROM executions WHERE session_id = ? AND status IN ('queued', 'running', 'suspended', 'resume_queued')`).pluck(),
    // Actor snapshots are keyed by execution id without a foreign key: removed with their session.
    removeSnapshots: db.prepare('DELETE FROM actor_snapshots WHERE actor_id IN (SELECT id FROM executions WHERE session_id = ?)'),
    remove: db.prepare('DELETE FROM sessions WHERE id = ?'),
  };

  function bind(source: string, extra: Record<string, unknown>, q: SessionListQuery) {
    return {
      source,
      status: q.status,
      from: q.createdFrom,
      to: q.createdTo,
      // No cursor: a bound past every row (ids are lower-case hex UUIDs, all below '~').
      before_at: q.before?.createdAt ?? Number.MAX_SAFE_INTEGER,
      before_id: q.before?.id ?? '~',
      limit: q.limit,
      ...extra,
    };
  }

  return {
    session: (id: string) => mapOptional(s.byId.get(id), sessionFromRow),
    /** Domain sessions of one domain (the caller checked membership). */
    ofDomain: (domainId: string, q: SessionListQuery) => (s.ofDomain.all(bind(domainId, {}, q)) as SessionRow[]).map(sessionFromRow),
    /** The caller's personal chats in the organization. */
    personalOf: (userId: string, orgId: string, q: SessionListQuery) => (s.personalOf.all(bind(userId, { org: orgId }, q)) as SessionRow[]).map(sessionFromRow),
    /** Sessions of one automation the user may see: their personal chats and domain sessions of their domains. */
    /** Domain sessions the user opened, of domains they belong to now (with personalOf: "mine"). */
    domainOpenedBy: (userId: string, orgId: string, q: SessionListQuery) => (s.domainOpenedBy.all(bind(userId, { org: orgId }, q)) as SessionRow[]).map(sessionFromRow),
    /** Sessions of one automation the user may see: their personal chats and domain sessions of their domains; `mine`: only those they opened. */
    ofAutomation: (automationId: string, orgId: string, userId: string, q: SessionListQuery, mine = false) =>
      (s.ofAutomation.all(bind(automationId, { org: orgId, user: userId, creator: mine ? userId : null }, q)) as SessionRow[]).map(sessionFromRow),
    /** Visible messages, newest first, strictly before the (turn position, message position) bound. */
    messagesPage: (sessionId: string, before: { turn: number; position: number } | null, limit: number) =>
      (s.messagesPage.all({
        session: sessionId,
        before_turn: before?.turn ?? Number.MAX_SAFE_INTEGER,
        before_position: before?.position ?? Number.MAX_SAFE_INTEGER,
        limit,
      }) as PagedMessageRow[]).map(pagedMessageFromRow),
    toolCallsPage: (sessionId: string, before: { createdAt: number; id: string } | null, limit: number) =>
      (s.toolCallsPage.all({ session: sessionId, before_at: before?.createdAt ?? Number.MAX_SAFE_INTEGER, before_id: before?.id ?? '~', limit }) as ToolCallRow[])
        .map(toolCallFromRow),
    setTitle: (id: string, title: string | null, now: number): void => void s.setTitle.run(title, now, id),
    setOutcome: (id: string, outcome: SessionOutcome | null, by: string | null, now: number): void =>
      void s.setOutcome.run(outcome, outcome === null ? null : by, outcome === null ? null : now, now, id),
    setArchived: (id: string, archived: boolean, now: number): void =>
      void s.setArchived.run(archived ? 'archived' : 'active', archived ? now : null, now, id),
    /** Executions not yet settled (queued, running, suspended, resume queued). */
    unsettledCount: (sessionId: string) => s.unsettled.get(sessionId) as number,
    /** Cascades to messages, executions (and their grants), tool calls, approvals, files and events. */
    remove: (id: string): void => {
      s.removeSnapshots.run(id);
      s.remove.run(id);
    },
  };
}

export type SessionListRepo = ReturnType<typeof createSessionListRepo>;
