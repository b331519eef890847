// Session list, paged messages and tool calls, and lifecycle (rename, outcome, archive, delete) with an `sv_` key.
import type { Services } from '../../runtime/services.js';
import { requireApiKey } from '../auth.js';
import type { HttpRequest, Route, RouteDoc } from '../types.js';
import { parseBody, parseWith, uuidParam } from '../validate.js';
import { EmptyBody, MessagesPage, PageQuery, SessionPatchBody, SessionsPage, SessionsQuery, ToolCallsPage } from './session-lifecycle.schemas.js';
import { SessionViewSchema } from './session-view.schemas.js';

const KEY_404 = { description: 'NOT_FOUND: missing or invalid key, unknown id, another organization\'s session, or one the key owner cannot see (uniform)' };
const MANAGE_403 = { description: 'FORBIDDEN: visible, but the key owner may not manage it (canManage is false)' };
const SESSION = '/api/v1/agents/sessions/:sessionId';
const DOC = { tags: ['conversations'], security: ['apiKey'] } satisfies Partial<RouteDoc>;

const epochOf = (iso: string | undefined): number | undefined => (iso === undefined ? undefined : Date.parse(iso));

function pageQuery(request: HttpRequest) {
  return parseWith(PageQuery, Object.fromEntries(request.query));
}

function archiveRoute(archived: boolean): Route<Services> {
  const verb = archived ? 'archive' : 'unarchive';
  return {
    method: 'POST',
    path: `${SESSION}/${verb}`,
    doc: {
      ...DOC,
      summary: archived
        ? 'Archive the session: read-only (readOnlyReason session_archived; messages, rename and outcome refused); session.changed `archived`. Idempotent.'
        : 'Unarchive the session: it takes messages again; session.changed `unarchived`. Idempotent.',
      operationId: `${verb}Session`,
      body: EmptyBody,
      bodyOptional: true,
      responses: { 200: { description: 'the session after the change', schema: SessionViewSchema }, 400: { description: 'VALIDATION: a field was sent' }, 403: MANAGE_403, 404: KEY_404 },
    },
    async handler(request, services) {
      const principal = requireApiKey(request, services);
      const sessionId = uuidParam(request, 'sessionId');
      parseBody(request, EmptyBody, { allowEmpty: true });
      return { status: 200, body: await services.sessions.lifecycle.setArchived(principal, sessionId, archived) };
    },
  };
}

export const sessionLifecycleRoutes: Route<Services>[] = [
  {
    method: 'GET',
    path: '/api/v1/agents/sessions',
    doc: {
      ...DOC,
      summary: 'The sessions the key owner can see (domain sessions of their domains, their personal chats), newest first, by cursor.',
      operationId: 'listSessions',
      query: SessionsQuery,
      responses: { 200: { description: 'a page of sessions', schema: SessionsPage }, 400: { description: 'VALIDATION: a filter, limit or cursor' }, 404: KEY_404 },
    },
    handler(request, services) {
      const principal = requireApiKey(request, services);
      const query = parseWith(SessionsQuery, Object.fromEntries(request.query));
      const page = services.sessions.list.list(principal, {
        ...query,
        automationId: query.automationId?.toLowerCase(),
        createdFrom: epochOf(query.createdFrom),
        createdTo: epochOf(query.createdTo),
      });
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: page };
    },
  },
  {
    method: 'PATCH',
    path: SESSION,
    doc: {
      ...DOC,
      summary: 'Rename the session and/or record its outcome (resolved, unresolved, escalated; null clears); session.changed `renamed` / `outcome_set`.',
      operationId: 'updateSession',
      body: SessionPatchBody,
      responses: {
        200: { description: 'the session after the change', schema: SessionViewSchema },
        400: { description: 'VALIDATION: unknown field, empty body, or a bad title or outcome' },
        403: MANAGE_403,
        404: KEY_404,
        409: { description: 'CONFLICT: the session is archived (details.reason session_archived)' },
      },
    },
    async handler(request, services) {
      const principal = requireApiKey(request, services);
      const sessionId = uuidParam(request, 'sessionId');
      const body = parseBody(request, SessionPatchBody);
      return { status: 200, body: await services.sessions.lifecycle.update(principal, sessionId, body) };
    },
  },
  archiveRoute(true),
  archiveRoute(false),
  {
    method: 'DELETE',
    path: SESSION,
    doc: {
      ...DOC,
      summary: 'Delete the session and its audit trail; session.changed `deleted` ends open streams. Refused while a turn is unfinished.',
      operationId: 'deleteSession',
      responses: {
        204: { description: 'deleted' },
        403: MANAGE_403,
        404: KEY_404,
        409: { description: 'CONFLICT: a turn is queued, running or waiting for approval (details.reason turn_in_progress)' },
      },
    },
    async handler(request, services) {
      const principal = requireApiKey(request, services);
      await services.sessions.lifecycle.remove(principal, uuidParam(request, 'sessionId'));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: `${SESSION}/messages`,
    doc: {
      ...DOC,
      summary: 'The session\'s messages (as in the session read), newest first, by cursor: for sessions too long to read at once.',
      operationId: 'listSessionMessages',
      query: PageQuery,
      responses: { 200: { description: 'a page of messages', schema: MessagesPage }, 400: { description: 'VALIDATION: limit or cursor' }, 404: KEY_404 },
    },
    handler(request, services) {
      const principal = requireApiKey(request, services);
      const sessionId = uuidParam(request, 'sessionId');
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: services.sessions.list.messages(principal, sessionId, pageQuery(request)) };
    },
  },
  {
    method: 'GET',
    path: `${SESSION}/tool-calls`,
    doc: {
      ...DOC,
      summary: 'The session\'s tool calls (as in the session read), newest first, by cursor.',
      operationId: 'listSessionToolCalls',
      query: PageQuery,
      responses: { 200: { description: 'a page of tool calls', schema: ToolCallsPage }, 400: { description: 'VALIDATION: limit or cursor' }, 404: KEY_404 },
    },
    handler(request, services) {
      const principal = requireApiKey(request, services);
      const sessionId = uuidParam(request, 'sessionId');
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: services.sessions.list.toolCalls(principal, sessionId, pageQuery(request)) };
    },
  },
];

/** Mirrored for customer tenants (partner-tenant.route.ts). */
export const SESSION_LIFECYCLE_PATHS: readonly string[] = [...new Set(sessionLifecycleRoutes.map((route) => route.path))];
