// POST /api/v1/console/activate: an owner redeems the single-use activation link (sets a password, signs in).
import { z } from 'zod';
import { ORGANIZATION_LIMITS } from '../../runtime/manifest/organization.schema.js';
import type { Services } from '../../runtime/services.js';
import { sessionCookie } from '../auth.js';
import { PUBLIC } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';

const ActivateBody = z.strictObject({
  token: z.string().min(1).max(200),
  password: z.string().min(ORGANIZATION_LIMITS.passwordMinLength).max(ORGANIZATION_LIMITS.passwordMaxLength),
});

export const activationRoutes: Route<Services>[] = [
  declareRoutes(PUBLIC)({
    method: 'POST',
    path: '/api/v1/console/activate',
    doc: {
      summary: 'Redeem an owner activation link (`svi_` token from its #token= fragment): set the first password and sign in.',
      operationId: 'activateOwner',
      tags: ['console'],
      body: ActivateBody,
      responses: {
        200: {
          description: 'activated; signed in (cookie) unless the organization disabled direct login',
          schema: z.object({ userId: z.uuid(), orgId: z.uuid().nullable(), signedIn: z.boolean() }),
          headers: ['Set-Cookie'],
        },
        400: { description: 'VALIDATION (password 8-1,024 characters)' },
        404: { description: 'NOT_FOUND: unknown, used or expired link (indistinguishable)' },
      },
    },
    async handler({ body, request }, services) {
      const result = await services.partners.activation.activate(body);
      const headers: Record<string, string> = { 'cache-control': 'no-store' };
      if (result.sessionSecret !== null) {
        headers['set-cookie'] = sessionCookie(result.sessionSecret, { secure: request.secure, maxAgeSeconds: Math.floor(services.config.consoleSessionTtlMs / 1000) });
      }
      return { status: 200, headers, body: { userId: result.userId, orgId: result.orgId, signedIn: result.sessionSecret !== null } };
    },
  }),
];
