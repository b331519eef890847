// Reads over many rows: the sessions a caller can see, and one session's messages and tool calls, by keyset pages.
import type { PortRepositories } from '../../storage/port/storage.js';
import type { Session, SessionOutcome } from '../../storage/records/sessions.js';
import { toIso } from '../clock.js';
import { decodePosition, decodeTuple, encodeTuple } from '../paging/cursor.js';
import { creationCursor, probedPage } from '../paging/keyset-page.js';
import { visibleSession, type Caller } from './session-access.js';
import { messageView, toolCallView, type MessageView, type ToolCallView } from './session-view.js';

export const SESSIONS_PAGE_DEFAULT = 20;
export const SESSIONS_PAGE_MAX = 100;

type SessionListQuery = Parameters<PortRepositories['sessionList']['ofDomain']>[1];
type Repos = Pick<PortRepositories, 'sessions' | 'sessionList' | 'tenancy' | 'automations' | 'executions'>;

export interface SessionSummary {
  sessionId: string;
  automationId: string;
  domainId: string;
  visibility: 'personal' | 'domain';
  origin: string;
  status: string;
  title: string | null;
  outcome: SessionOutcome | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
}

export interface SessionListOptions {
  automationId?: string;
  status?: 'active' | 'archived';
  /** Epoch ms, inclusive. */
  createdFrom?: number;
  /** Epoch ms, exclusive. */
  createdTo?: number;
  /** Only sessions the caller opened (their personal chats and the domain sessions they started). */
  mine?: boolean;
  limit?: number;
  cursor?: string;
}


function summary(row: Session): SessionSummary {
  return {
    sessionId: row.id,
    automationId: row.automationId,
    domainId: row.domainId,
    visibility: row.visibility,
    origin: row.origin,
    status: row.status,
    title: row.title,
    outcome: row.outcome,
    createdBy: row.createdBy,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    archivedAt: row.archivedAt === null ? null : toIso(row.archivedAt),
  };
}

const newestFirst = (a: Session, b: Session): number =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export function createSessionList(repos: Repos) {
  return {
    /**
     * Rule 3 for many rows: domain sessions of the domains the caller belongs to now, and the caller's own personal
     * chats. Each source is one index range scan of at most limit+1 rows; their merge is the page.
     */
    async list(caller: Caller, options: SessionListOptions): Promise<{ sessions: SessionSummary[]; nextCursor: string | null }> {
      const limit = options.limit ?? SESSIONS_PAGE_DEFAULT;
      const query: SessionListQuery = {
        status: options.status ?? null,
        createdFrom: options.createdFrom ?? 0,
        createdTo: options.createdTo ?? Number.MAX_SAFE_INTEGER,
        before: options.cursor ? decodePosition(options.cursor) : null,
        limit: limit + 1,
      };
      const { sessionList } = repos;
      let rows: Session[];
      if (options.automationId !== undefined) {
        rows = await sessionList.ofAutomation(options.automationId, caller.orgId, caller.userId, query, options.mine === true);
      } else if (options.mine === true) {
        rows = [...(await sessionList.domainOpenedBy(caller.userId, caller.orgId, query)), ...(await sessionList.personalOf(caller.userId, caller.orgId, query))];
        rows.sort(newestFirst);
      } else {
        rows = [];
        for (const d of await repos.tenancy.domainRolesOfUser(caller.userId, caller.orgId)) rows.push(...(await sessionList.ofDomain(d.domainId, query)));
        rows.push(...(await sessionList.personalOf(caller.userId, caller.orgId, query)));
        rows.sort(newestFirst);
      }
      const page = probedPage(rows, limit, creationCursor);
      return { sessions: page.rows.map(summary), nextCursor: page.nextCursor };
    },

    /** The people-facing messages of a visible session, newest first (the GET body holds them oldest first). */
    async messages(caller: Caller, sessionId: string, options: { limit?: number; cursor?: string }): Promise<{ messages: MessageView[]; nextCursor: string | null }> {
      const session = await visibleSession(repos, caller, sessionId);
      const limit = options.limit ?? SESSIONS_PAGE_DEFAULT;
      const before = options.cursor ? decodeTuple(options.cursor, ['n', 'n']) : null;
      const rows = await repos.sessionList.messagesPage(session.id, before && { turn: before[0] as number, position: before[1] as number }, limit + 1);
      const page = probedPage(rows, limit, (last) => encodeTuple([last.executionPosition, last.position]));
      return { messages: page.rows.map((m) => messageView(caller, m)), nextCursor: page.nextCursor };
    },

    /** The tool calls of a visible session, newest first. */
    async toolCalls(caller: Caller, sessionId: string, options: { limit?: number; cursor?: string }): Promise<{ toolCalls: ToolCallView[]; nextCursor: string | null }> {
      const session = await visibleSession(repos, caller, sessionId);
      const limit = options.limit ?? SESSIONS_PAGE_DEFAULT;
      const before = options.cursor ? decodeTuple(options.cursor, ['n', 's']) : null;
      const rows = await repos.sessionList.toolCallsPage(session.id, before && { createdAt: before[0] as number, id: before[1] as string }, limit + 1);
      const page = probedPage(rows, limit, (last) => encodeTuple([last.createdAt, last.id]));
      return { toolCalls: page.rows.map(toolCallView), nextCursor: page.nextCursor };
    },
  };
}

export type SessionList = ReturnType<typeof createSessionList>;
