// Console sign-in (cookie) and the spec's POST /auth/token (cookie only -> svu_ token).
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { consoleCookie, sessionCookie } from '../auth.js';
import { credential, PUBLIC } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';

/**
 * The session cookie as sent (possibly none): signing out and minting a token let the sign-in service judge it; a
 * cross-origin POST carrying it is refused first (http/cross-origin.ts).
 */
const sessionCookieRoute = declareRoutes(credential(['cookie'], consoleCookie));

const LoginBody = z.strictObject({
  email: z.string().trim().min(3).max(320),
  password: z.string().min(1).max(1024),
  orgId: z.uuid().optional(),
});

const TokenResponse = z.object({ token: z.string(), expiresAt: z.iso.datetime() });
/** orgId is null when the person belongs to several organizations and named none. */
const LoginResponse = z.object({ userId: z.uuid(), orgId: z.uuid().nullable() });

export const consoleRoutes: Route<Services>[] = [
  declareRoutes(PUBLIC)({
    method: 'POST',
    path: '/api/v1/console/login',
    doc: {
      summary: 'Sign in to the console with email and password; sets the service_session cookie.',
      operationId: 'consoleLogin',
      tags: ['console'],
      body: LoginBody,
      responses: {
        200: { description: 'signed in', schema: LoginResponse, headers: ['Set-Cookie'] },
        400: { description: 'VALIDATION' },
        401: { description: 'UNAUTHORIZED: wrong email or password' },
      },
    },
    async handler({ body, request }, services) {
      const session = await services.signIn.login(body);
      const maxAgeSeconds = Math.floor(services.config.consoleSessionTtlMs / 1000);
      return {
        status: 200,
        headers: { 'set-cookie': sessionCookie(session.secret, { secure: request.secure, maxAgeSeconds }), 'cache-control': 'no-store' },
        body: { userId: session.userId, orgId: session.orgId },
      };
    },
  }),
  sessionCookieRoute({
    method: 'POST',
    path: '/api/v1/console/logout',
    doc: {
      summary: 'Sign out: deletes the console session and clears the cookie.',
      operationId: 'consoleLogout',
      tags: ['console'],
      responses: { 204: { description: 'signed out (also without a session: signing out is idempotent)', headers: ['Set-Cookie'] } },
    },
    async handler({ caller: secret, request }, services) {
      if (secret) await services.signIn.logout(secret);
      return { status: 204, headers: { 'set-cookie': sessionCookie('', { secure: request.secure, maxAgeSeconds: 0 }) } };
    },
  }),
  sessionCookieRoute({
    method: 'POST',
    path: '/api/v1/auth/token',
    doc: {
      summary: 'Mint a one-hour svu_ user access token from the browser session cookie (no API key accepted).',
      operationId: 'mintUserToken',
      tags: ['auth'],
      responses: { 200: { description: 'token', schema: TokenResponse }, 401: { description: 'UNAUTHORIZED: no cookie, or no organization selected' } },
    },
    async handler({ caller: secret }, services) {
      const issued = await services.signIn.issueUserToken(secret);
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: issued };
    },
  }),
];
