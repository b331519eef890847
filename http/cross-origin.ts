// Cross-origin protection for writes the console cookie authenticates (the model: Go 1.25's http.CrossOriginProtection).
import { AppError } from '../runtime/errors.js';
import type { HttpRequest } from './types.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * True when a browser says the request came from another site. Browsers send `Sec-Fetch-Site` on every request
 * since 2023; older ones send `Origin` on a cross-origin POST, compared with `Host`. A client that sends neither is
 * not a browser acting for another page (curl, scripts, server-to-server), so it passes.
 */
export function isCrossOrigin(request: HttpRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== (request.headers.host ?? '');
  } catch {
    // `Origin: null` (a sandboxed frame, a redirect across sites) or garbage: never this service's own page.
    return true;
  }
}

/**
 * Refuses a cookie-authenticated write sent from another site: SameSite=Lax alone still lets a sibling subdomain
 * (same site, other origin) post with the cookie. 403 FORBIDDEN: the cookie is valid, the context is not allowed.
 */
export function assertSameOriginWrite(request: HttpRequest): void {
  if (SAFE_METHODS.has(request.method) || !isCrossOrigin(request)) return;
  throw new AppError('FORBIDDEN', 'Cross-origin request refused: the console cookie only authorizes changes made from the console\'s own origin.', {
    reason: 'cross_origin',
  });
}
