// The MCP methods this server serves (initialize, ping, tools/list, tools/call) and the notifications it heeds.
import {
  CallToolRequestParamsSchema,
  InitializeRequestParamsSchema,
  PaginatedRequestParamsSchema,
  type ProgressToken,
} from '@modelcontextprotocol/sdk/types.js';
import type { UserPrincipal } from '../../runtime/auth/principal.js';
import { AppError } from '../../runtime/errors.js';
import { InvalidParamsError, type McpSession } from '../../runtime/mcp/index.js';
import type { Services } from '../../runtime/services.js';
import { ErrorCode, notification, rpcError, rpcResult, type JSONRPCNotification, type JSONRPCRequest, type JsonRpcResponse, type RequestId } from './json-rpc.js';
import { negotiateVersion } from './protocol-version.js';

/** `version` follows the API (`/api/v1`), like the OpenAPI document's. */
export const SERVER_INFO = Object.freeze({ name: 'switchyard', title: 'Switchyard', version: '1' });

const INSTRUCTIONS =
  'Each tool is a published agent of your organization. A call runs one conversational turn and returns the answer ' +
  'with its sessionId; pass that sessionId to the same tool to continue the conversation. A turn that needs approval ' +
  'returns status "suspended" with an approvalId instead of an answer.';

export interface MethodContext {
  services: Services;
  principal: UserPrincipal;
  session: McpSession;
  /** Present when the answer travels on an SSE stream: progress notifications may precede it. */
  notify?: (message: JSONRPCNotification) => void;
  /** Aborts when the stream closes: a waiting tools/call stops waiting (its turn carries on). */
  signal?: AbortSignal;
}

/** Map key of a request id: `1` and `"1"` are different requests. */
const idKey = (id: RequestId): string => `${typeof id}:${id}`;

function invalidParams(id: RequestId, message: string, data?: unknown): JsonRpcResponse {
  return rpcError(id, ErrorCode.InvalidParams, message, data);
}

/** initialize: negotiates the revision; the caller creates the session and sends its id in Mcp-Session-Id. */
export function initializeAnswer(request: JSONRPCRequest): { version: string; response: JsonRpcResponse } | { error: JsonRpcResponse } {
  const params = InitializeRequestParamsSchema.safeParse(request.params);
  if (!params.success) return { error: invalidParams(request.id, 'initialize needs protocolVersion, capabilities and clientInfo.') };
  const version = negotiateVersion(params.data.protocolVersion);
  const serverInfo = version >= '2025-06-18' ? { ...SERVER_INFO } : { name: SERVER_INFO.name, version: SERVER_INFO.version };
  return {
    version,
    response: rpcResult(request.id, {
      protocolVersion: version,
      // No listChanged: the tool list is per request (permissions, entitlements), not a subscription.
      capabilities: { tools: { listChanged: false } },
      serverInfo,
      instructions: INSTRUCTIONS,
    }),
  };
}

async function callTool(request: JSONRPCRequest, ctx: MethodContext): Promise<JsonRpcResponse> {
  const params = CallToolRequestParamsSchema.safeParse(request.params);
  if (!params.success) return invalidParams(request.id, 'tools/call needs a tool name and an arguments object.');
  const token: ProgressToken | undefined = params.data._meta?.progressToken;
  const notify = ctx.notify;
  let progress = 0;
  const onProgress =
    token !== undefined && notify
      ? (message: string) => notify(notification('notifications/progress', { progressToken: token, progress: ++progress, message }))
      : undefined;

  // notifications/cancelled for this id, or the stream closing, stops the wait.
  const waiting = new AbortController();
  const stop = (): void => waiting.abort();
  ctx.signal?.addEventListener('abort', stop);
  if (ctx.signal?.aborted) stop();
  const key = idKey(request.id);
  ctx.session.inFlight.set(key, waiting);
  try {
    const result = await ctx.services.mcp.callTool(ctx.principal, {
      name: params.data.name,
      arguments: params.data.arguments,
      protocolVersion: ctx.session.protocolVersion,
      signal: waiting.signal,
      onProgress,
    });
    return rpcResult(request.id, result);
  } finally {
    ctx.signal?.removeEventListener('abort', stop);
    if (ctx.session.inFlight.get(key) === waiting) ctx.session.inFlight.delete(key);
  }
}

async function route(request: JSONRPCRequest, ctx: MethodContext): Promise<JsonRpcResponse> {
  switch (request.method) {
    case 'ping':
      return rpcResult(request.id, {});
    case 'tools/list': {
      const params = PaginatedRequestParamsSchema.safeParse(request.params ?? {});
      if (!params.success) return invalidParams(request.id, 'tools/list takes an optional string cursor.');
      const page = await ctx.services.mcp.listTools(ctx.principal, { cursor: params.data.cursor, protocolVersion: ctx.session.protocolVersion });
      return rpcResult(request.id, { ...page });
    }
    case 'tools/call':
      return callTool(request, ctx);
    default:
      return rpcError(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method.slice(0, 100)}`);
  }
}

/** One request to one response; failures become JSON-RPC errors, never an HTTP 500 for a single bad request. */
export async function dispatchRequest(request: JSONRPCRequest, ctx: MethodContext): Promise<JsonRpcResponse> {
  try {
    return await route(request, ctx);
  } catch (error) {
    if (error instanceof InvalidParamsError) return invalidParams(request.id, error.message, error.data);
    if (error instanceof AppError && error.status < 500) {
      return rpcError(request.id, ErrorCode.InvalidRequest, error.message, { code: error.code });
    }
    ctx.services.logger.error({ method: request.method, err: error instanceof Error ? error.name : typeof error }, 'MCP request failed');
    return rpcError(request.id, ErrorCode.InternalError, 'Internal error.');
  }
}

/**
 * Notifications get no answer. Only notifications/cancelled changes anything here; the rest (initialized,
 * progress, roots/list_changed) are accepted and ignored: nothing this server does depends on them.
 */
export function handleNotification(message: JSONRPCNotification, session: McpSession): void {
  if (message.method === 'notifications/cancelled') {
    const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof requestId === 'string' || typeof requestId === 'number') session.inFlight.get(idKey(requestId))?.abort();
  }
}
