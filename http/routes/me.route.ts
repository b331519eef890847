// GET /api/v1/me: who a personal key belongs to (a cheap authenticated read for clients and benchmarks).
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { API_KEY } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';

const MeResponse = z.object({ userId: z.uuid(), orgId: z.uuid(), name: z.string(), email: z.string() });

export const meRoutes: Route<Services>[] = [
  declareRoutes(API_KEY)({
    method: 'GET',
    path: '/api/v1/me',
    doc: {
      summary: 'The key owner and the organization the key acts in.',
      operationId: 'getMe',
      tags: ['auth'],
      responses: { 200: { description: 'owner', schema: MeResponse }, 404: { description: 'NOT_FOUND: missing or invalid key' } },
    },
    async handler({ caller: principal }, services) {
      const user = await services.store.repos.tenancy.user(principal.userId);
      return { status: 200, body: { userId: principal.userId, orgId: principal.orgId, name: user?.name ?? '', email: user?.email ?? '' } };
    },
  }),
];
