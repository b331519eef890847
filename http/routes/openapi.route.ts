// GET /api/v1/openapi.json: the document http/openapi/ generates from the routes' zod schemas, built once.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { buildOpenApi } from '../openapi/document.js';
import { PUBLIC } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { PROBE_PATHS } from './health.route.js';
import { OUTBOUND_WEBHOOKS } from './webhook-payload.schemas.js';

/** The OpenAPI document of the service's routes, as served. */
export const serviceOpenApi = (routes: readonly Route<Services>[]): Record<string, unknown> => 
  buildOpenApi(routes as readonly Route<unknown>[], { unlimitedPaths: PROBE_PATHS, webhooks: OUTBOUND_WEBHOOKS });

export function openApiRoute(allRoutes: () => Route<Services>[]): Route<Services> {
  let cached: string | null = null;
  return declareRoutes(PUBLIC)({
    method: 'GET',
    path: '/api/v1/openapi.json',
    doc: {
      summary: 'This OpenAPI 3.1 document.',
      operationId: 'getOpenApiDocument',
      tags: ['operations'],
      responses: { 200: { description: 'the document', schema: z.record(z.string(), z.unknown()) } },
    },
    handler() {
      cached ??= JSON.stringify(serviceOpenApi(allRoutes()));
      return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: cached };
    },
  });
}
