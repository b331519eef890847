// Agent conversations: open (`sv_` key), append, read, stream (SSE) and file download (key or console cookie).
import { AppError } from '../../runtime/errors.js';
import type { Services } from '../../runtime/services.js';
import { normalizeCallerCredentials } from '../../runtime/vault/index.js';
import { API_KEY, KEY_OR_CONSOLE } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import { lastEventIdOf, sseReply } from '../sse.js';
import type { HttpRequest, Route } from '../types.js';
import { z } from 'zod';
import { SessionEventEnvelopeSchema, SessionViewSchema } from './session-view.schemas.js';
import { AppendResponse, MessageBody, OpenBody, OpenResponse } from './sessions.schemas.js';

/** SSE resume: the `id:` of the last frame received (EventSource sends it on reconnect). */
const StreamHeaders = z.object({
  'Last-Event-ID': z.string().max(100).optional().describe('Resume after this seq: the gap is replayed, or stream.reset is sent when it cannot be.'),
});


function messageRequest(body: z.output<typeof MessageBody>) {
  return { message: body.message, callerCredentials: body.callerCredentials && normalizeCallerCredentials(body.callerCredentials) };
}

function openRequest(body: z.output<typeof OpenBody>) {
  return { message: body.message, visibility: body.visibility, callerCredentials: body.callerCredentials && normalizeCallerCredentials(body.callerCredentials) };
}

const keyRoute = declareRoutes(API_KEY);
/** Everything but opening a session also takes the console cookie (writes same-origin only: http/cross-origin.ts). */
const sessionRoute = declareRoutes(KEY_OR_CONSOLE);

const KEY_404 = { description: 'NOT_FOUND: missing or invalid key, unknown id, or another organization\'s id (uniform)' };

/** `Accept` must allow an event stream when it is sent (EventSource sends `text/event-stream`). */
function acceptsEventStream(request: HttpRequest): boolean {
  const accept = request.headers.accept;
  return accept === undefined || /(^|,)\s*(text\/event-stream|text\/\*|\*\/\*)\s*(;|,|$)/i.test(accept);
}

/** `filename*` (RFC 6266/8187) so any name survives; the plain `filename` fallback is ASCII only. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export const sessionsRoutes: Route<Services>[] = [
  keyRoute({
    method: 'POST',
    path: '/api/v1/agents/:automationId/sessions',
    uuidParams: ['automationId'],
    doc: {
      summary: 'Open a session on a published agent with its first message; the turn is queued (202 after the rows commit). `visibility: personal` opens a chat only you can see.',
      operationId: 'openSession',
      tags: ['conversations'],
      body: OpenBody,
      responses: {
        202: { description: 'accepted: the session and its first turn are durable', schema: OpenResponse },
        400: { description: 'VALIDATION' },
        403: { description: 'FORBIDDEN: the key owner cannot run automations in the agent\'s domain' },
        404: { description: `${KEY_404.description}; also a flow or an unpublished agent` },
        422: { description: 'CALLER_CREDENTIALS_REQUIRED: the agent binds an integration at caller identity and no credential was sent' },
      },
    },
    handler: async ({ caller, params, body }, services) => {
      // Answered once the session row is durable; its execution and message rows follow (`written`, not awaited).
      const { sessionId, executionId } = await services.sessions.conversations.open(caller, params.automationId as string, openRequest(body));
      return { status: 202, body: { sessionId, executionId } };
    },
  }),
  sessionRoute({
    method: 'POST',
    path: '/api/v1/agents/sessions/:sessionId/messages',
    uuidParams: ['sessionId'],
    doc: {
      summary: 'Append a message; its turn runs after every earlier turn of the session has settled.',
      operationId: 'appendMessage',
      tags: ['conversations'],
      body: MessageBody,
      responses: {
        200: { description: 'queued', schema: AppendResponse },
        400: { description: 'VALIDATION' },
        403: { description: 'SESSION_NOT_DRIVABLE: visible, but the key owner may not send messages here; details.readOnlyReason says why (flow_session, not_a_participant, session_archived, agent_unpublished)' },
        404: KEY_404,
        422: { description: 'CALLER_CREDENTIALS_REQUIRED' },
      },
    },
    handler: async ({ caller, params, body }, services) => ({
      status: 200,
      body: await services.sessions.conversations.append(caller, params.sessionId as string, messageRequest(body)),
    }),
  }),
  sessionRoute({
    method: 'GET',
    path: '/api/v1/agents/sessions/:sessionId',
    uuidParams: ['sessionId'],
    doc: {
      summary: 'Session details for the caller: canParticipate, canManage, readOnlyReason, messages with authors, tool calls, files, pending approval.',
      operationId: 'getSession',
      tags: ['conversations'],
      responses: { 200: { description: 'session', schema: SessionViewSchema }, 404: KEY_404 },
    },
    handler: async ({ caller, params }, services) => ({
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: await services.sessions.view(caller, params.sessionId as string),
    }),
  }),
  sessionRoute({
    method: 'GET',
    path: '/api/v1/agents/sessions/:sessionId/stream',
    uuidParams: ['sessionId'],
    doc: {
      summary: 'Server-Sent Events: retry, snapshot, then live events (Last-Event-ID replays what was missed); visibility suffices.',
      operationId: 'streamSession',
      tags: ['conversations'],
      headers: StreamHeaders,
      responses: {
        200: {
          description: 'An event stream: `retry: 2000`, then frames of `id: <seq>` and one `data:` line holding a SessionEventEnvelope (snapshot first); `: hb` comments every 25 s.',
          contentType: 'text/event-stream',
          schema: SessionEventEnvelopeSchema,
        },
        404: KEY_404,
        406: { description: 'NOT_ACCEPTABLE: Accept excludes text/event-stream' },
      },
    },
    async handler({ caller, params, request }, services) {
      const sessionId = params.sessionId as string;
      await services.sessions.visible(caller, sessionId);
      if (!acceptsEventStream(request)) throw new AppError('NOT_ACCEPTABLE', 'This route answers text/event-stream only.');
      return sseReply({
        sessionId,
        lastEventId: lastEventIdOf(request),
        snapshot: () => services.sessions.snapshot(sessionId),
        bus: services.events,
        clock: services.clock,
        heartbeatMs: services.config.sseHeartbeatMs,
        onError: (error) => services.logger.error({ sessionId, err: error instanceof Error ? error.name : typeof error }, 'stream snapshot failed'),
      });
    },
  }),
  sessionRoute({
    method: 'GET',
    path: '/api/v1/agents/sessions/:sessionId/files/:fileId',
    uuidParams: ['sessionId', 'fileId'],
    doc: {
      summary: 'Download a file a tool returned during the session (announced by file.added).',
      operationId: 'downloadSessionFile',
      tags: ['conversations'],
      responses: { 200: { description: 'the file, as an attachment, with its own media type', contentType: 'application/octet-stream', headers: ['Content-Disposition'] }, 404: KEY_404 },
    },
    async handler({ caller, params }, services) {
      const file = await services.sessions.file(caller, params.sessionId as string, params.fileId as string);
      return {
        status: 200,
        headers: {
          'content-type': file.mediaType,
          'content-disposition': contentDisposition(file.name),
          'x-content-type-options': 'nosniff',
          'cache-control': 'private, no-store',
        },
        body: file.content,
      };
    },
  }),
];
