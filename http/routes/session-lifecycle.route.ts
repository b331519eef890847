// Session list, paged messages and tool calls, and lifecycle (rename, outcome, archive, delete): an `sv_` key or the console cookie.
import type { Services } from '../../runtime/services.js';
import { KEY_OR_CONSOLE } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route, RouteDoc } from '../types.js';
import { EmptyBody, MessagesPage, PageQuery, SessionPatchBody, SessionsPage, SessionsQuery, ToolCallsPage } from './session-lifecycle.schemas.js';
import { SessionViewSchema } from './session-view.schemas.js';

const KEY_404 = { description: 'NOT_FOUND: missing or invalid key, unknown id, another organization\'s session, or one the key owner cannot see (uniform)' };
const MANAGE_403 = { description: 'FORBIDDEN: visible, but the key owner may not manage it (canManage is false)' };
const SESSION = '/api/v1/agents/sessions/:sessionId';
const DOC = { tags: ['conversations'] } satisfies Partial<RouteDoc>;
const keyRoute = declareRoutes(KEY_OR_CONSOLE);

const epochOf = (iso: string | undefined): number | undefined => (iso === undefined ? undefined : Date.parse(iso));

function archiveRoute(archived: boolean): Route<Services> {
  const verb = archived ? 'archive' : 'unarchive';
  return keyRoute({
    method: 'POST',
    path: `${SESSION}/${verb}`,
    uuidParams: ['sessionId'],
    allowEmptyBody: true,
    doc: {
      ...DOC,
      summary: archived
        ? 'Archive the session: read-only (readOnlyReason session_archived; messages, rename and outcome refused); session.changed `archived`. Idempotent.'
        : 'Unarchive the session: it takes messages again; session.changed `unarchived`. Idempotent.',
      operationId: `${verb}Session`,
      body: EmptyBody,
      responses: { 200: { description: 'the session after the change', schema: SessionViewSchema }, 400: { description: 'VALIDATION: a field was sent' }, 403: MANAGE_403, 404: KEY_404 },
    },
    handler: async ({ caller, params }, services) => ({
      status: 200,
      body: await services.sessions.lifecycle.setArchived(caller, params.sessionId as string, archived),
    }),
  });
}

export const sessionLifecycleRoutes: Route<Services>[] = [
  keyRoute({
    method: 'GET',
    path: '/api/v1/agents/sessions',
    doc: {
      ...DOC,
      summary: 'The sessions the key owner can see (domain sessions of their domains, their personal chats), newest first, by cursor.',
      operationId: 'listSessions',
      query: SessionsQuery,
      responses: { 200: { description: 'a page of sessions', schema: SessionsPage }, 400: { description: 'VALIDATION: a filter, limit or cursor' }, 404: KEY_404 },
    },
    async handler({ caller, query }, services) {
      const page = await services.sessions.list.list(caller, {
        ...query,
        automationId: query.automationId?.toLowerCase(),
        createdFrom: epochOf(query.createdFrom),
        createdTo: epochOf(query.createdTo),
      });
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: page };
    },
  }),
  keyRoute({
    method: 'PATCH',
    path: SESSION,
    uuidParams: ['sessionId'],
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
    handler: async ({ caller, params, body }, services) => ({
      status: 200,
      body: await services.sessions.lifecycle.update(caller, params.sessionId as string, body),
    }),
  }),
  archiveRoute(true),
  archiveRoute(false),
  keyRoute({
    method: 'DELETE',
    path: SESSION,
    uuidParams: ['sessionId'],
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
    async handler({ caller, params }, services) {
      await services.sessions.lifecycle.remove(caller, params.sessionId as string);
      return { status: 204 };
    },
  }),
  keyRoute({
    method: 'GET',
    path: `${SESSION}/messages`,
    uuidParams: ['sessionId'],
    doc: {
      ...DOC,
      summary: 'The session\'s messages (as in the session read), newest first, by cursor: for sessions too long to read at once.',
      operationId: 'listSessionMessages',
      query: PageQuery,
      responses: { 200: { description: 'a page of messages', schema: MessagesPage }, 400: { description: 'VALIDATION: limit or cursor' }, 404: KEY_404 },
    },
    handler: async ({ caller, params, query }, services) => ({
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: await services.sessions.list.messages(caller, params.sessionId as string, query),
    }),
  }),
  keyRoute({
    method: 'GET',
    path: `${SESSION}/tool-calls`,
    uuidParams: ['sessionId'],
    doc: {
      ...DOC,
      summary: 'The session\'s tool calls (as in the session read), newest first, by cursor.',
      operationId: 'listSessionToolCalls',
      query: PageQuery,
      responses: { 200: { description: 'a page of tool calls', schema: ToolCallsPage }, 400: { description: 'VALIDATION: limit or cursor' }, 404: KEY_404 },
    },
    handler: async ({ caller, params, query }, services) => ({
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: await services.sessions.list.toolCalls(caller, params.sessionId as string, query),
    }),
  }),
];

/** Mirrored for customer tenants (partner-tenant.route.ts). */
export const SESSION_LIFECYCLE_PATHS: readonly string[] = [...new Set(sessionLifecycleRoutes.map((route) => route.path))];
