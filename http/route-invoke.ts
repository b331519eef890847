// The kernel's steps between route lookup and reply for one route: credential, headers, body and query, then the handler.
import type { ZodObject } from 'zod';
import { assertJsonContentType, idempotencyKeyOf, requiredIdempotencyKeyOf } from './request-headers.js';
import { parseWith, readJson, uuidParam } from './validate.js';
import { isDeclaredRoute, type DeclaredRoute, type HandlerReply, type HttpRequest, type Route } from './types.js';

/**
 * Calls a declared route in a fixed order, each step once (docs/lifecycle.md): its credential; its UUID path
 * params (else the uniform 404); the Idempotency-Key when `doc.headers` declares one (required unless optional
 * there); a JSON Content-Type when the route requires one (415); its body (`doc.body`, unless the route's protocol
 * parses it; empty is `{}` when `doc.bodyOptional`) and query (`doc.query`); then its handler. The credential
 * comes first so an unauthenticated caller learns nothing from validation. A raw route gets the request as it is.
 */
export async function invokeRoute<S>(route: Route<S>, request: HttpRequest, services: S): Promise<HandlerReply> {
  if (!isDeclaredRoute(route)) return route.handler(request, services);
  const caller = await route.credential.resolve(request, services);
  const { doc } = route;
  for (const name of route.uuidParams ?? []) request.params[name] = uuidParam(request, name);
  const idempotencyKey = idempotencyKeyFor(route, request);
  if (route.requireJsonContentType === true) assertJsonContentType(request.headers['content-type']);
  const parsesBody = doc.body !== undefined && route.protocolBody !== true;
  const json = parsesBody ? readJson(request, { allowEmpty: doc.bodyOptional === true }) : undefined;
  const body = parsesBody ? parseWith(doc.body as NonNullable<typeof doc.body>, json) : undefined;
  const query = doc.query ? parseWith(doc.query, Object.fromEntries(request.query)) : undefined;
  return route.handle({ caller, body, json, query, idempotencyKey, params: request.params, request }, services);
}

/** Per route, whether `doc.headers` declares the Idempotency-Key and whether it may be absent (read once, not per request). */
const keyRules = new WeakMap<object, 'none' | 'optional' | 'required'>();

function idempotencyKeyFor<S>(route: DeclaredRoute<S>, request: HttpRequest): string | null {
  let rule = keyRules.get(route);
  if (rule === undefined) {
    const declared = (route.doc.headers as ZodObject | undefined)?.shape['Idempotency-Key'];
    rule = declared === undefined ? 'none' : declared.safeParse(undefined).success ? 'optional' : 'required';
    keyRules.set(route, rule);
  }
  if (rule === 'none') return null;
  return rule === 'optional' ? idempotencyKeyOf(request, undefined) : requiredIdempotencyKeyOf(request);
}
