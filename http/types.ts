// Transport-neutral request/reply types: handlers never see uWebSockets.js objects.
import type { ZodObject, ZodType } from 'zod';

export interface HttpRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  /** Lower-cased header names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** How many times each (lower-cased) header appeared: repeated Idempotency-Key headers are refused. */
  headerCounts: Record<string, number>;
  params: Record<string, string>;
  body: Buffer;
  ip: string;
  requestId: string;
  /** True when the request reached us over TLS or through a proxy that says so. */
  secure: boolean;
  /** Set by the kernel from config (SWITCHYARD_JSON_MAX_DEPTH); readJson falls back to the default without it. */
  jsonMaxDepth?: number;
}

export interface JsonReply {
  status: number;
  headers?: Record<string, string>;
  /** Serialized as JSON unless it is a Buffer or string (then sent as is). */
  body?: unknown;
}

/** A long-lived reply (SSE); `open` is called once the response is committed. */
export interface StreamReply {
  status: number;
  headers: Record<string, string>;
  open(sink: StreamSink): void;
}

export interface StreamSink {
  /** Queues a chunk; returns false when the client is too slow and the stream was closed. */
  write(chunk: string): boolean;
  end(): void;
  onClose(listener: () => void): void;
  readonly closed: boolean;
}

export type Reply = JsonReply | StreamReply;

export const isStreamReply = (reply: Reply): reply is StreamReply => typeof (reply as StreamReply).open === 'function';

/** Response headers the OpenAPI document describes (http/openapi/components.ts RESPONSE_HEADERS). */
export type DocHeaderName = 'Retry-After' | 'Idempotency-Replayed' | 'Location' | 'Set-Cookie' | 'Allow' | 'X-Request-Id' | 'Content-Disposition' | 'Mcp-Session-Id';

export interface ResponseDoc {
  description: string;
  /** The body; for an error status (>= 400) the error envelope unless given. */
  schema?: ZodType;
  /**
   * Default `application/json`. For `text/event-stream` the schema describes each event's `data:` JSON; a type
   * without a schema is a string (binary downloads, text).
   */
  contentType?: string | string[];
  headers?: DocHeaderName[];
}

export interface RouteDoc {
  summary: string;
  /** Unique across the document; derived from method and path when absent (http/openapi/operation.ts). */
  operationId?: string;
  tags?: string[];
  body?: ZodType;
  /** The route also accepts an empty body (as `{}`): the request body is documented as optional. */
  bodyOptional?: boolean;
  query?: ZodType;
  /** An object schema: one header parameter per property (property names as the header is spelled). */
  headers?: ZodObject;
  /** status -> description (and optional schema) for the OpenAPI document. */
  responses?: Record<number, ResponseDoc>;
  /** Absent: a public route (`security: []`). */
  security?: Array<'apiKey' | 'userToken' | 'cookie' | 'partnerKey' | 'lease'>;
}

export interface Route<S = unknown> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  doc: RouteDoc;
  /** Maximum request body in bytes (default from config). */
  bodyLimit?: number;
  /**
   * Also served under /api/partner/v1/organizations/:orgId/… for a partner acting as the X-Service-Subject person
   * (http/routes/partner-tenant.route.ts). Only `/api/v1` routes whose credential honours `actAs` may set it.
   */
  tenant?: boolean;
  handler(request: HttpRequest, services: S): Promise<Reply> | Reply;
}
