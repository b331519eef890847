// POST /api/v1/mcp: one Streamable HTTP exchange (initialize, or messages on a session), answered as JSON, SSE or 202.
/*
 * Order of checks (docs/decisions.md "MCP transport"): media types -> JSON -> initialize (creates the session) ->
 * MCP-Protocol-Version -> Mcp-Session-Id (missing 400, unknown/ended/another key's 404) -> batch rules of the
 * negotiated revision -> each message. Requests are answered as one JSON body, or as an SSE stream when the client
 * accepts one and a tools/call is among them (so progress notifications can precede the result).
 */
import type { UserPrincipal } from '../../runtime/auth/principal.js';
import { nestsDeeperThan } from '../../runtime/bounded-json.js';
import { notFound } from '../../runtime/errors.js';
import type { McpSession } from '../../runtime/mcp/index.js';
import type { Services } from '../../runtime/services.js';
import type { HttpRequest, Reply } from '../types.js';
import { classify, ErrorCode, rpcError, rpcHttpError, type JSONRPCRequest, type JsonRpcResponse } from './json-rpc.js';
import { dispatchRequest, handleNotification, initializeAnswer } from './mcp-methods.js';
import { rpcStreamReply } from './mcp-stream.js';
import { allowsBatches, isSupportedVersion, MCP_SUPPORTED_VERSIONS } from './protocol-version.js';

/** The SDKs' code for transport-level refusals (bad headers, media types); JSON-RPC reserves -32000..-32099 for servers. */
const TRANSPORT_ERROR = -32000;

export interface AcceptedMedia {
  json: boolean;
  sse: boolean;
}

/** Which answer formats the client takes; no Accept header means anything (we then prefer JSON). */
export function acceptedMedia(accept: string | undefined): AcceptedMedia {
  if (accept === undefined || accept.trim() === '') return { json: true, sse: true };
  const ranges = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const any = ranges.includes('*/*');
  return {
    json: any || ranges.includes('application/json') || ranges.includes('application/*'),
    sse: any || ranges.includes('text/event-stream') || ranges.includes('text/*'),
  };
}

const isJsonContentType = (value: string | undefined): boolean => value !== undefined && /^application\/json\s*(;|$)/i.test(value.trim());

const isInitialize = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && (value as { method?: unknown }).method === 'initialize';

/** Answers already computed: a JSON body, or a one-shot stream for a client that only takes SSE. */
function answer(body: JsonRpcResponse | JsonRpcResponse[], media: AcceptedMedia, services: Services, headers?: Record<string, string>): Reply {
  if (media.json) return { status: 200, headers, body };
  return rpcStreamReply({
    heartbeatMs: services.config.sseHeartbeatMs,
    headers,
    async run(send) {
      for (const message of Array.isArray(body) ? body : [body]) send(message);
    },
    onError: () => undefined,
  });
}

function initialize(body: unknown, media: AcceptedMedia, services: Services, principal: UserPrincipal): Reply {
  const incoming = classify(body);
  if (incoming.kind !== 'request') return rpcHttpError(400, ErrorCode.InvalidRequest, 'Invalid Request: initialize must be a JSON-RPC request with an id.');
  const result = initializeAnswer(incoming.message);
  if ('error' in result) return answer(result.error, media, services);
  const session = services.mcp.sessions.create(principal, result.version);
  return answer(result.response, media, services, { 'mcp-session-id': session.id });
}

/** Header checks after initialize; a Reply refuses, a session means go on. */
function sessionOf(request: HttpRequest, services: Services, principal: UserPrincipal): Reply | McpSession {
  const version = request.headers['mcp-protocol-version']?.trim();
  if (version !== undefined && !isSupportedVersion(version)) {
    return rpcHttpError(400, TRANSPORT_ERROR, `Bad Request: unsupported MCP-Protocol-Version (supported: ${MCP_SUPPORTED_VERSIONS.join(', ')}).`);
  }
  const id = request.headers['mcp-session-id'];
  if (id === undefined || id === '' || request.headerCounts['mcp-session-id'] > 1) {
    return rpcHttpError(400, TRANSPORT_ERROR, 'Bad Request: the Mcp-Session-Id header from initialize is required.');
  }
  // Unknown, ended, expired, or initialized with another key: the uniform 404 (the client starts a new session).
  const session = services.mcp.sessions.use(id, principal.credentialId);
  if (session === undefined) throw notFound();
  if (version !== undefined && version !== session.protocolVersion) {
    return rpcHttpError(400, TRANSPORT_ERROR, `Bad Request: this session negotiated MCP-Protocol-Version ${session.protocolVersion}.`);
  }
  return session;
}

export async function handleMcpPost(request: HttpRequest, services: Services, principal: UserPrincipal): Promise<Reply> {
  const media = acceptedMedia(request.headers.accept);
  if (!media.json && !media.sse) return rpcHttpError(406, TRANSPORT_ERROR, 'Not Acceptable: accept application/json or text/event-stream.');
  if (!isJsonContentType(request.headers['content-type'])) {
    return rpcHttpError(415, TRANSPORT_ERROR, 'Unsupported Media Type: Content-Type must be application/json.');
  }
  const text = request.body.toString('utf8');
  // The same nesting bound as readJson (JSON-RPC answers need their own envelope, so the parse is here).
  const maxDepth = request.jsonMaxDepth ?? services.config.jsonMaxDepth;
  if (nestsDeeperThan(text, maxDepth)) {
    return rpcHttpError(400, ErrorCode.InvalidRequest, `Invalid Request: the JSON body nests deeper than the limit of ${maxDepth} levels.`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return rpcHttpError(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON.');
  }
  const batch = Array.isArray(body);
  const raw: unknown[] = batch ? (body as unknown[]) : [body];
  if (raw.some(isInitialize)) {
    // 2025-03-26 allowed batches but never an initialize inside one; 2025-06-18 has no batches at all.
    if (batch) return rpcHttpError(400, ErrorCode.InvalidRequest, 'Invalid Request: initialize must be sent alone, not in a batch.');
    return initialize(body, media, services, principal);
  }

  const session = sessionOf(request, services, principal);
  if (!('inFlight' in session)) return session;
  if (batch && !allowsBatches(session.protocolVersion)) {
    return rpcHttpError(400, ErrorCode.InvalidRequest, `Invalid Request: protocol revision ${session.protocolVersion} has no JSON-RPC batches; send one message per POST.`);
  }
  if (batch && raw.length === 0) return rpcHttpError(400, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch.');

  const incoming = raw.map(classify);
  const first = incoming[0]!;
  if (!batch && first.kind === 'invalid') {
    return { status: 400, body: rpcError(first.id, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response.') };
  }
  const errors: JsonRpcResponse[] = [];
  const requests: JSONRPCRequest[] = [];
  for (const message of incoming) {
    if (message.kind === 'invalid') errors.push(rpcError(message.id, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message.'));
    else if (message.kind === 'notification') handleNotification(message.message, session);
    else if (message.kind === 'request') requests.push(message.message);
  }
  // Only notifications and responses: accepted, no body.
  if (requests.length === 0 && errors.length === 0) return { status: 202 };

  const base = { services, principal, session };
  const stream = media.sse && (!media.json || requests.some((r) => r.method === 'tools/call'));
  if (!stream) {
    const responses = [...errors, ...(await Promise.all(requests.map((r) => dispatchRequest(r, base))))];
    return { status: 200, body: batch ? responses : responses[0] };
  }
  return rpcStreamReply({
    heartbeatMs: services.config.sseHeartbeatMs,
    async run(send, signal) {
      for (const error of errors) send(error);
      await Promise.all(requests.map(async (r) => send(await dispatchRequest(r, { ...base, notify: send, signal }))));
    },
    onError: (error) => services.logger.error({ err: error instanceof Error ? error.name : typeof error }, 'MCP stream failed'),
  });
}
