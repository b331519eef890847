// Liveness, readiness and Prometheus metrics.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { PUBLIC } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import type { HttpMetrics } from '../metrics.js';

const Readiness = z.object({ status: z.enum(['ready', 'not_ready']), database: z.enum(['ok', 'unavailable']) });

/** Probe and scrape paths: the per-IP rate limit never refuses them (a throttled probe would restart a healthy pod). */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export function healthRoutes(metrics: HttpMetrics): Route<Services>[] {
  const probe = declareRoutes(PUBLIC);
  return [
    probe({
      method: 'GET',
      path: '/healthz',
      doc: { summary: 'Liveness: the process is serving.', operationId: 'getLiveness', tags: ['operations'], responses: { 200: { description: 'alive', schema: z.object({ status: z.literal('ok') }) } } },
      handler: () => ({ status: 200, body: { status: 'ok' } }),
    }),
    probe({
      method: 'GET',
      path: '/readyz',
      doc: {
        summary: 'Readiness: the database answers and the service is not shutting down.',
        operationId: 'getReadiness',
        tags: ['operations'],
        responses: { 200: { description: 'ready', schema: Readiness }, 503: { description: 'not ready (this body, not the error envelope)', schema: Readiness } },
      },
      handler: async (_call, services) => {
        let database = 'ok';
        try {
          await services.store.repos.tenancy.organization('readiness-probe');
        } catch {
          database = 'unavailable';
        }
        const ready = services.ready() && database === 'ok';
        return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', database } };
      },
    }),
    probe({
      method: 'GET',
      path: '/metrics',
      doc: { summary: 'Prometheus metrics.', operationId: 'getMetrics', tags: ['operations'], responses: { 200: { description: 'Prometheus text exposition format', contentType: 'text/plain' } } },
      handler: async () => ({
        status: 200,
        headers: { 'content-type': metrics.registry.contentType },
        body: await metrics.exposition(),
      }),
    }),
  ];
}
