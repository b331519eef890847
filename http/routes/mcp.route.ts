// The MCP endpoint (SPEC "MCP"): Streamable HTTP on /api/v1/mcp, published agents as tools, `sv_` key only.
/*
 * Every method runs the same gate first: Origin allow-list (403), no credential in the URL (400), the key from the
 * Authorization header (uniform 404). POST carries JSON-RPC (http/mcp/mcp-post.ts); GET would open a
 * server-to-client stream, which this server has no use for (it sends nothing unprompted), so it answers 405 as
 * the transport allows; DELETE ends the session named by Mcp-Session-Id.
 */
import { z } from 'zod';
import type { UserPrincipal } from '../../runtime/auth/principal.js';
import { AppError, notFound } from '../../runtime/errors.js';
import type { Services } from '../../runtime/services.js';
import { requireApiKey } from '../auth.js';
import { credential } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import { rpcHttpError } from '../mcp/json-rpc.js';
import { assertAllowedOrigin, refuseCredentialsInUrl } from '../mcp/mcp-guards.js';
import { handleMcpPost } from '../mcp/mcp-post.js';
import { isSupportedVersion } from '../mcp/protocol-version.js';
import type { HttpRequest, Route } from '../types.js';
import { ErrorEnvelope } from '../openapi/components.js';

const ProtocolVersion = z.string().optional().describe('MCP-Protocol-Version: 2025-06-18 or 2025-03-26 (the latter assumed when absent).');
const SessionHeaders = z.object({
  'Mcp-Session-Id': z.string().optional().describe('The session initialize answered with; required on every request after initialize.'),
  'MCP-Protocol-Version': ProtocolVersion,
});
const EndHeaders = z.object({ 'Mcp-Session-Id': z.string().min(1).describe('The session to end.'), 'MCP-Protocol-Version': ProtocolVersion });

/** A JSON-RPC 2.0 message (request, notification or response); the MCP methods define params and results. */
const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).nullable().optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: 'JsonRpcMessage' });
/** 2025-03-26 allowed a batch (an array); 2025-06-18 sends one message. */
const JsonRpcBody = z.union([JsonRpcMessage, z.array(JsonRpcMessage)]);

const PATH = '/api/v1/mcp';

function gate(request: HttpRequest, services: Services): Promise<UserPrincipal> {
  assertAllowedOrigin(request, services.mcp.allowedOrigins);
  refuseCredentialsInUrl(request);
  return requireApiKey(request, services);
}

/** The same gate on every method, resolved by the kernel as the route's credential. */
const mcpRoute = declareRoutes(credential(['apiKey'], gate));

const COMMON_RESPONSES = {
  400: {
    description: 'VALIDATION: a credential in the URL; or a JSON-RPC error body: bad MCP-Protocol-Version, missing Mcp-Session-Id, -32700, -32600',
    schema: z.union([ErrorEnvelope, JsonRpcMessage]),
  },
  403: { description: 'FORBIDDEN: an Origin outside SWITCHYARD_MCP_ALLOWED_ORIGINS' },
  404: { description: 'NOT_FOUND: missing or invalid key, or an unknown, ended or foreign Mcp-Session-Id (uniform)' },
};

export const mcpRoutes: Route<Services>[] = [
  mcpRoute({
    method: 'POST',
    path: PATH,
    protocolBody: true,
    doc: {
      summary: 'MCP Streamable HTTP (protocol 2025-06-18, 2025-03-26 accepted): initialize, ping, tools/list, tools/call; published agents as tools.',
      operationId: 'mcpPost',
      tags: ['mcp'],
      headers: SessionHeaders,
      body: JsonRpcBody,
      responses: {
        200: {
          description: 'JSON-RPC response (application/json), or text/event-stream with progress notifications then the response; initialize sets Mcp-Session-Id',
          contentType: ['application/json', 'text/event-stream'],
          schema: JsonRpcBody,
          headers: ['Mcp-Session-Id'],
        },
        202: { description: 'only notifications or responses were sent' },
        ...COMMON_RESPONSES,
        406: { description: 'a JSON-RPC error: Accept allows neither application/json nor text/event-stream', schema: JsonRpcMessage },
        415: { description: 'a JSON-RPC error: Content-Type is not application/json', schema: JsonRpcMessage },
      },
    },
    handler: ({ caller, request }, services) => handleMcpPost(request, services, caller),
  }),
  mcpRoute({
    method: 'GET',
    path: PATH,
    doc: {
      summary: 'No server-to-client stream: this server sends nothing unprompted (405, as Streamable HTTP allows).',
      operationId: 'mcpGet',
      tags: ['mcp'],
      responses: { 405: { description: 'METHOD_NOT_ALLOWED', headers: ['Allow'] }, ...COMMON_RESPONSES },
    },
    handler() {
      throw new AppError('METHOD_NOT_ALLOWED', 'This MCP server offers no server-to-client stream; POST messages instead.', undefined, {
        headers: { allow: 'POST, DELETE' },
      });
    },
  }),
  mcpRoute({
    method: 'DELETE',
    path: PATH,
    doc: {
      summary: 'End the MCP session named by Mcp-Session-Id; later requests with it get 404. Agent sessions it started are untouched.',
      operationId: 'mcpDelete',
      tags: ['mcp'],
      headers: EndHeaders,
      responses: { 204: { description: 'ended' }, ...COMMON_RESPONSES },
    },
    handler({ caller: principal, request }, services) {
      const version = request.headers['mcp-protocol-version']?.trim();
      if (version !== undefined && !isSupportedVersion(version)) return rpcHttpError(400, -32000, 'Bad Request: unsupported MCP-Protocol-Version.');
      const id = request.headers['mcp-session-id'];
      if (id === undefined || id === '') return rpcHttpError(400, -32000, 'Bad Request: the Mcp-Session-Id header is required.');
      const session = services.mcp.sessions.use(id, principal.credentialId);
      if (session === undefined) throw notFound();
      services.mcp.sessions.end(session);
      return { status: 204 };
    },
  }),
];
