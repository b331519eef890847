// The one way to declare a route: method, path, credential, schemas (in the doc) and handler together.
import type { z, ZodType } from 'zod';
import type { Credential, DeclaredRoute, HandlerReply, HttpRequest, RouteDoc } from './types.js';

type Parsed<T> = T extends ZodType ? z.output<T> : undefined;

/** What a declared handler gets: the caller, `doc.body` and `doc.query` parsed, the path params, the raw request. */
export interface GuardedCall<C, D extends RouteDoc> {
  readonly caller: C;
  readonly body: Parsed<D['body']>;
  readonly query: Parsed<D['query']>;
  readonly json: unknown;
  readonly idempotencyKey: string | null;
  readonly params: Record<string, string>;
  readonly request: HttpRequest;
}

export interface GuardedRoute<S, C, D extends RouteDoc> extends Omit<DeclaredRoute<S>, 'doc' | 'handle' | 'credential' | 'handler'> {
  /** The security is the credential's (`declareRoutes(CREDENTIAL)`): a doc cannot state its own. */
  doc: D & { security?: never };
  /** An empty request body counts as `{}` (bodies whose every field is optional); published as an optional body. */
  allowEmptyBody?: boolean;
  handler(call: GuardedCall<C, D>, services: S): Promise<HandlerReply> | HandlerReply;
}

/**
 * Route declarer for one credential (http/credentials.ts). The kernel resolves the credential before it reads the
 * body, so a caller without one learns nothing about the body; it parses `doc.body` and `doc.query`, so the
 * OpenAPI document and the parser cannot disagree. The doc's security is the credential's.
 */
export function declareRoutes<S, C>(credential: Credential<S, C>) {
  return <D extends RouteDoc>({ allowEmptyBody, handler, ...route }: GuardedRoute<S, C, D>): DeclaredRoute<S> => ({
    ...route,
    doc: { ...route.doc, security: credential.security, ...(allowEmptyBody ? { bodyOptional: true } : {}) },
    credential,
    handle: handler as DeclaredRoute<S>['handle'],
  });
}
