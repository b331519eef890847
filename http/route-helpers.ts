// Route definitions of one shape: authenticate the caller, parse the body the doc publishes, call a service, reply.
import type { z, ZodType } from 'zod';
import type { HttpRequest, Reply, Route, RouteDoc } from './types.js';
import { parseBody } from './validate.js';

/** What a guarded handler gets: the authenticated caller, the parsed body (undefined when the doc has none), the path params. */
export interface GuardedCall<C, D extends RouteDoc> {
  readonly caller: C;
  readonly body: D['body'] extends ZodType ? z.output<D['body']> : undefined;
  readonly params: Record<string, string>;
  readonly request: HttpRequest;
}

export interface GuardedRoute<S, C, D extends RouteDoc> extends Omit<Route<S>, 'doc' | 'handler'> {
  doc: D;
  /** An empty request body counts as `{}` (bodies whose every field is optional). */
  allowEmptyBody?: boolean;
  handler(call: GuardedCall<C, D>, services: S): Promise<Reply> | Reply;
}

/**
 * Route builder for one credential. The credential is checked before the body is read, so a caller without
 * one learns nothing about the body; the body parsed is `doc.body`, so the OpenAPI document and the parser
 * cannot disagree.
 */
export function guardedRoutes<S, C>(credential: (request: HttpRequest, services: S) => C) {
  return <D extends RouteDoc>({ allowEmptyBody, handler, ...route }: GuardedRoute<S, C, D>): Route<S> => ({
    ...route,
    doc: allowEmptyBody ? { ...route.doc, bodyOptional: true } : route.doc,
    handler(request, services) {
      const caller = credential(request, services);
      const body = route.doc.body ? parseBody(request, route.doc.body, { allowEmpty: allowEmptyBody }) : undefined;
      return handler({ caller, body: body as GuardedCall<C, D>['body'], params: request.params, request }, services);
    },
  });
}
