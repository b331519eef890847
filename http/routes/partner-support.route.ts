// Support sessions: the console grants (POST/DELETE /api/v1/support-grants) and the partner read (GET /support-sessions/:grantId).
import { z } from 'zod';
import { supportGrantBodySchema } from '../../runtime/partners/support-grants.service.js';
import type { Services } from '../../runtime/services.js';
import { CONSOLE, LEASE } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { SupportGrantSchema, SupportSessionSchema } from './partner.schemas.js';

const GrantAnswer = z.object({ grant: SupportGrantSchema });

const consoleRoute = declareRoutes(CONSOLE);
const leaseRoute = declareRoutes(LEASE);

export const partnerSupportRoutes: Route<Services>[] = [
  consoleRoute({
    method: 'POST',
    path: '/api/v1/support-grants',
    doc: {
      summary: 'Share one session with the organization\'s partner platform (Owner or Admin who can see it); returns the grantId to hand to support.',
      operationId: 'createSupportGrant',
      tags: ['console'],
      body: supportGrantBodySchema,
      responses: {
        201: { description: 'the grant', schema: GrantAnswer },
        400: { description: 'VALIDATION' },
        401: { description: 'UNAUTHORIZED: no console session' },
        403: { description: 'FORBIDDEN: not an organization Owner or Admin' },
        404: { description: 'NOT_FOUND: unknown or invisible session' },
        409: { description: 'CONFLICT: the organization has no partner platform' },
      },
    },
    handler: async ({ caller, body }, services) => ({ status: 201, body: { grant: await services.partners.supportGrants.create(caller, body) } }),
  }),
  consoleRoute({
    method: 'DELETE',
    path: '/api/v1/support-grants/:grantId',
    doc: {
      summary: 'Revoke a support grant at once.',
      operationId: 'revokeSupportGrant',
      tags: ['console'],
      responses: { 200: { description: 'the revoked grant', schema: GrantAnswer }, 401: { description: 'UNAUTHORIZED' }, 403: { description: 'FORBIDDEN' }, 404: { description: 'NOT_FOUND' } },
    },
    handler: async ({ caller, params }, services) => ({ status: 200, body: { grant: await services.partners.supportGrants.revoke(caller, params.grantId ?? '') } }),
  }),
  leaseRoute({
    method: 'GET',
    path: '/api/partner/v1/support-sessions/:grantId',
    doc: {
      summary: 'Read the one session a support grant shares, with any lease of that organization (no collection route).',
      operationId: 'readSupportSession',
      tags: ['partner'],
      responses: { 200: { description: 'the shared session', schema: SupportSessionSchema }, 401: { description: 'UNAUTHORIZED' }, 404: { description: 'NOT_FOUND: unknown, expired, revoked or another organization\'s grant (indistinguishable)' } },
    },
    handler: async ({ caller, params }, services) => ({ status: 200, headers: { 'cache-control': 'no-store' }, body: await services.partners.supportGrants.read(caller, params.grantId ?? '') }),
  }),
];
