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

/** A reply a handler may follow with work that must not delay it (engine dispatch after a 202). */
export type HandlerReply = Reply & {
  /**
   * Run by the kernel once, after the reply is handed to the transport, and only for a success (< 400). A route
   * never schedules its own `setImmediate`: this is the one place work after the answer starts (docs/lifecycle.md).
   */
  after?: () => void;
};

/** Who may call a declared route: how the kernel resolves the caller, and the OpenAPI security it publishes. */
export interface Credential<S, C> {
  /** The security schemes of the OpenAPI document; `[]` is a public route. */
  readonly security: NonNullable<RouteDoc['security']>;
  /**
   * Returns the caller or throws the credential's own error (uniform 404, 401). Runs before the body is read; a
   * credential that reads storage answers with a promise, which the kernel awaits.
   */
  resolve(request: HttpRequest, services: S): C | Promise<C>;
}

/** What a declared handler gets: everything the kernel resolved and parsed from the route's declaration. */
export interface RouteCall<C = unknown, B = unknown, Q = unknown> {
  readonly caller: C;
  /** `doc.body` parsed (undefined when the route has no body schema). */
  readonly body: B;
  /** `doc.query` parsed (undefined when the route has no query schema). */
  readonly query: Q;
  /** The body's JSON as sent, before the schema (a fingerprint of the request as the client wrote it). */
  readonly json: unknown;
  /** The Idempotency-Key header when `doc.headers` declares it (one value, pattern checked), else null. */
  readonly idempotencyKey: string | null;
  readonly params: Record<string, string>;
  readonly request: HttpRequest;
}

interface RouteBase {
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
}

/**
 * The one shape of a route (http/route-helpers.ts `declareRoutes`): the kernel resolves `credential`, then parses
 * `doc.body` (an empty body is `{}` when `doc.bodyOptional`) and `doc.query`, then calls `handle`. The OpenAPI
 * document reads the same fields, so its security and request schemas are the ones enforced.
 */
export interface DeclaredRoute<S = unknown> extends RouteBase {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  credential: Credential<S, any>;
  /** Path params that must be UUIDs: any other value is the uniform 404, checked before the body (lower-cased for the handler). */
  uuidParams?: readonly string[];
  /**
   * The route's protocol answers a malformed body in its own error format (MCP: JSON-RPC errors), so the kernel
   * leaves the body to the handler; `doc.body` still documents it.
   */
  protocolBody?: boolean;
  /** Refuse a body whose Content-Type is not application/json with 415 (default: only a non-JSON type given is a 400). */
  requireJsonContentType?: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handle(call: RouteCall<any, any, any>, services: S): Promise<HandlerReply> | HandlerReply;
  handler?: never;
}

/** A route that reads the raw request itself (streams, MCP, signed inbound events): it authenticates and parses on its own. */
export interface RawRoute<S = unknown> extends RouteBase {
  handler(request: HttpRequest, services: S): Promise<HandlerReply> | HandlerReply;
  credential?: never;
  handle?: never;
}

export type Route<S = unknown> = DeclaredRoute<S> | RawRoute<S>;

export const isDeclaredRoute = <S>(route: Route<S>): route is DeclaredRoute<S> => typeof (route as DeclaredRoute<S>).handle === 'function';
