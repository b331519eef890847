// Credential extraction for route handlers; failures follow the spec (uniform 404 on key routes).
import { AppError, notFound } from '../runtime/errors.js';
import type { UserPrincipal } from '../runtime/auth/principal.js';
import type { Services } from '../runtime/services.js';
import { assertSameOriginWrite } from './cross-origin.js';
import type { HttpRequest } from './types.js';

export const SESSION_COOKIE = 'service_session';

export function bearerToken(request: HttpRequest): string | null {
  const header = request.headers.authorization;
  if (!header || request.headerCounts.authorization > 1) return null;
  const match = /^Bearer ([^\s,]+)$/i.exec(header.trim());
  return match ? match[1] : null;
}

export function cookieValue(request: HttpRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(/;\s*/)) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The console cookie as a credential: every route that authenticates with it reads it here, so a write (not
 * GET/HEAD/OPTIONS) sent from another site is refused before the cookie counts (http/cross-origin.ts).
 */
export function consoleCookie(request: HttpRequest): string | undefined {
  const secret = cookieValue(request, SESSION_COOKIE);
  if (secret !== undefined) assertSameOriginWrite(request);
  return secret;
}

/**
 * People a route wrapper already authenticated before calling a shared `/api/v1` handler (the partner API's
 * customer-tenant routes act as the person X-Service-Subject names). Keyed by the request object, so only code
 * holding it can set one; the transport never does.
 */
const actingPrincipals = new WeakMap<HttpRequest, UserPrincipal>();

export function actAs(request: HttpRequest, principal: UserPrincipal): void {
  actingPrincipals.set(request, principal);
}

/** `sv_` key routes: anything wrong with the key is the same 404 as an unknown id (spec rule 6). */
export async function requireApiKey(request: HttpRequest, services: Services): Promise<UserPrincipal> {
  const acting = actingPrincipals.get(request);
  if (acting !== undefined) return acting;
  const token = bearerToken(request);
  if (token === null && request.method === 'GET') {
    const viewer = await consoleViewer(request, services);
    if (viewer) return viewer;
  }
  const principal = token ? await services.auth.apiKey(token) : null;
  if (!principal) throw notFound();
  services.keyLimiter.take(`key:${principal.credentialId}`);
  return principal;
}

/** Authoring routes: an `sv_` key or an `svu_` token, with the user's current membership. */
export async function requireAuthoringCredential(request: HttpRequest, services: Services): Promise<UserPrincipal> {
  const acting = actingPrincipals.get(request);
  if (acting !== undefined) return acting;
  const token = bearerToken(request);
  let principal: UserPrincipal | null = null;
  if (token?.startsWith('sv_')) principal = await services.auth.apiKey(token);
  else if (token?.startsWith('svu_')) principal = await services.auth.userToken(token);
  if (!principal) throw notFound();
  services.keyLimiter.take(`key:${principal.credentialId}`);
  return principal;
}

/**
 * Management routes: a bearer credential is checked as on key routes (`sv_` key, `svu_` token, or the person a
 * customer-tenant wrapper acts as; anything wrong is the uniform 404); without one, the console cookie (401).
 */
export async function requireManageCredential(request: HttpRequest, services: Services): Promise<UserPrincipal> {
  const token = bearerToken(request);
  if (token?.startsWith('svu_')) {
    const principal = await services.auth.userToken(token);
    if (!principal) throw notFound();
    services.keyLimiter.take(`key:${principal.credentialId}`);
    return principal;
  }
  if (token === null && consoleCookie(request) !== undefined) return requireConsole(request, services);
  return requireApiKey(request, services);
}

/**
 * Session routes (read, stream, send a message, cancel, rename, archive, outcome, approve): an `sv_` key as on every
 * key route, or, without an Authorization header, the console cookie for any method (writes pass the cross-origin
 * check). The person's own visibility and role rules apply either way; a missing or stale cookie is the uniform 404.
 */
export async function requireKeyOrConsole(request: HttpRequest, services: Services): Promise<UserPrincipal> {
  const acting = actingPrincipals.get(request);
  if (acting !== undefined) return acting;
  if (request.headers.authorization === undefined) {
    const viewer = await consoleViewer(request, services);
    if (viewer) return viewer;
  }
  return requireApiKey(request, services);
}

/**
 * The web console reads with its cookie (an EventSource cannot send a bearer): on a key route, a GET without an
 * Authorization header accepts a valid console session; session routes accept it for writes too
 * (requireKeyOrConsole). A missing or stale cookie falls through to the uniform 404 (spec rule 6).
 */
async function consoleViewer(request: HttpRequest, services: Services): Promise<UserPrincipal | null> {
  const secret = consoleCookie(request);
  const session = secret ? await services.auth.consoleSession(secret) : null;
  if (!session || !session.orgId || !(await services.auth.isActiveMember(session.userId, session.orgId))) return null;
  services.keyLimiter.take(`console:${session.sessionId}`);
  return { kind: 'user', via: 'console', userId: session.userId, orgId: session.orgId, credentialId: session.sessionId };
}

/** Console routes: the `service_session` cookie with an organization selected; else 401. */
export async function requireConsole(request: HttpRequest, services: Services): Promise<UserPrincipal> {
  const acting = actingPrincipals.get(request);
  if (acting !== undefined) return acting;
  const secret = consoleCookie(request);
  const session = secret ? await services.auth.consoleSession(secret) : null;
  if (!session || !session.orgId || !(await services.auth.isActiveMember(session.userId, session.orgId))) {
    throw new AppError('UNAUTHORIZED', 'Sign in to the console first.');
  }
  services.keyLimiter.take(`console:${session.sessionId}`);
  return { kind: 'user', via: 'console', userId: session.userId, orgId: session.orgId, credentialId: session.sessionId };
}

export function sessionCookie(secret: string, options: { secure: boolean; maxAgeSeconds: number }): string {
  return [
    `${SESSION_COOKIE}=${secret}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${options.maxAgeSeconds}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

/**
 * Management routes (issue 13 item 6): the console cookie, or an `sv_` key / `svu_` token of the same person (the
 * role decides, not the credential). A bearer that does not resolve is the uniform 404 of key routes; no
 * credential at all is the console's 401.
 */
export async function requireManager(request: HttpRequest, services: Services): Promise<UserPrincipal> {
  const acting = actingPrincipals.get(request);
  if (acting !== undefined) return acting;
  if (request.headers.authorization !== undefined) return requireAuthoringCredential(request, services);
  return requireConsole(request, services);
}
