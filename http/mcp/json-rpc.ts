// JSON-RPC 2.0 framing for the MCP endpoint: classify incoming messages (with the SDK's schemas) and build replies.
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonReply } from '../types.js';

export { ErrorCode };
export type { JSONRPCNotification, JSONRPCRequest, RequestId };
export type JsonRpcResponse = JSONRPCResultResponse | JSONRPCErrorResponse;

export type Incoming =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  /** A response to a server request: we send none, so it is acknowledged and dropped. */
  | { kind: 'response' }
  | { kind: 'invalid'; id: RequestId | null };

export function classify(value: unknown): Incoming {
  if (isJSONRPCRequest(value)) return { kind: 'request', message: value };
  if (isJSONRPCNotification(value)) return { kind: 'notification', message: value };
  if (isJSONRPCResultResponse(value) || isJSONRPCErrorResponse(value)) return { kind: 'response' };
  return { kind: 'invalid', id: idOf(value) };
}

/** The id of a malformed message when it has a usable one (JSON-RPC: else null). */
function idOf(value: unknown): RequestId | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

export function rpcResult(id: RequestId, result: Record<string, unknown>): JSONRPCResultResponse {
  return { jsonrpc: '2.0', id, result };
}

/** An error response; `id` null when the request's id could not be read (JSON-RPC 2.0 section 5). */
export function rpcError(id: RequestId | null, code: number, message: string, data?: unknown): JSONRPCErrorResponse {
  const error = data === undefined ? { code, message } : { code, message, data };
  // The SDK types an absent id as optional; JSON-RPC 2.0 wants an explicit null, which clients accept.
  return { jsonrpc: '2.0', id: id as RequestId, error };
}

/** A transport-level refusal (HTTP 4xx) carrying a JSON-RPC error body without an id, as the MCP SDKs answer. */
export function rpcHttpError(status: number, code: number, message: string, headers?: Record<string, string>): JsonReply {
  return { status, headers, body: rpcError(null, code, message) };
}

export function notification(method: string, params: Record<string, unknown>): JSONRPCNotification {
  return { jsonrpc: '2.0', method, params };
}
