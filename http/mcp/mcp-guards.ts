// Checks every MCP request passes before its key is read: Origin allow-list (DNS rebinding) and no credentials in the URL.
import { AppError } from '../../runtime/errors.js';
import { normalizeOrigin } from '../../runtime/mcp/index.js';
import type { HttpRequest } from '../types.js';

/**
 * MCP transport security: servers MUST validate Origin. A request without one comes from a non-browser client
 * and is allowed (the key still has to be right); a browser page from anywhere else, an opaque `null` origin
 * included, is refused with 403 before anything else is looked at.
 */
export function assertAllowedOrigin(request: HttpRequest, allowed: ReadonlySet<string>): void {
  const raw = request.headers.origin;
  if (raw === undefined) return;
  const origin = request.headerCounts.origin === 1 ? normalizeOrigin(raw) : null;
  if (origin === null || !allowed.has(origin)) {
    throw new AppError('FORBIDDEN', 'This Origin may not call the MCP endpoint.');
  }
}

const CREDENTIAL_PREFIX = /^sv[upt]?_/i;
const CREDENTIAL_PARAMS = new Set(['key', 'api_key', 'apikey', 'token', 'access_token', 'authorization', 'auth']);

/**
 * The key is read from the Authorization header only. One sent in the query string is refused outright (400)
 * rather than ignored: URLs end up in proxy logs and browser history, and the caller should learn that now.
 */
export function refuseCredentialsInUrl(request: HttpRequest): void {
  for (const [name, value] of request.query) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase()) || CREDENTIAL_PREFIX.test(value)) {
      throw new AppError('VALIDATION', 'Send the API key in the Authorization header; credentials in the URL are refused.');
    }
  }
}
