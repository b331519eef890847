// Run history reads (sv_ key or console cookie): GET /api/v1/triggers/:triggerId/runs and /runs/:runId.
import { z } from 'zod';
import type { UserPrincipal } from '../../runtime/auth/principal.js';
import type { Services } from '../../runtime/services.js';
import { RUNS_PAGE_DEFAULT, RUNS_PAGE_MAX } from '../../runtime/triggers/run-history.js';
import { bearerToken, cookieValue, requireApiKey, requireConsole, SESSION_COOKIE } from '../auth.js';
import { credential } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { HttpRequest, Route } from '../types.js';

const RunsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(RUNS_PAGE_MAX).default(RUNS_PAGE_DEFAULT),
  cursor: z.string().min(1).max(200).optional(),
});

const SubscriberResult = z.object({
  automationId: z.uuid(),
  name: z.string().nullable(),
  kind: z.string().nullable(),
  status: z.enum(['started', 'skipped', 'failed']),
  code: z.string().nullable(),
  reason: z.string().nullable(),
  sessionId: z.uuid().nullable(),
});

const Run = z.object({
  runId: z.uuid(),
  triggerId: z.uuid(),
  source: z.enum(['api', 'schedule', 'event']),
  firedBy: z.uuid().nullable(),
  outcome: z.enum(['succeeded', 'partial', 'failed', 'skipped']),
  acceptedAt: z.iso.datetime(),
  idempotencyKey: z.string().nullable(),
  unusedCredentialIntegrationIds: z.array(z.string()),
  subscribers: z.array(SubscriberResult),
});

/** A bearer key is checked as a key (uniform 404); otherwise the console cookie; with neither, the key routes' 404. */
function requireKeyOrConsole(request: HttpRequest, services: Services): UserPrincipal {
  if (bearerToken(request) === null && cookieValue(request, SESSION_COOKIE) !== undefined) return requireConsole(request, services);
  return requireApiKey(request, services);
}

const TRIGGER_404 = { description: 'NOT_FOUND: missing or invalid key, unknown or another organization\'s trigger or run (uniform)' };

const READ_DOC = { tags: ['triggers'] };
const readRoute = declareRoutes(credential(['apiKey', 'cookie'], requireKeyOrConsole));

export const triggerRunsRoutes: Route<Services>[] = [
  readRoute({
    method: 'GET',
    path: '/api/v1/triggers/:triggerId/runs',
    doc: {
      ...READ_DOC,
      summary: 'Run history of a trigger, newest first; pass nextCursor as cursor for older firings.',
      operationId: 'listTriggerRuns',
      query: RunsQuery,
      responses: {
        200: { description: 'a page of firings', schema: z.object({ runs: z.array(Run), nextCursor: z.string().nullable() }) },
        400: { description: 'VALIDATION: limit or cursor' },
        404: TRIGGER_404,
      },
    },
    handler: async ({ caller, params, query }, services) => ({ status: 200, body: await services.triggerRuns.list(caller, params.triggerId ?? '', query) }),
  }),
  readRoute({
    method: 'GET',
    path: '/api/v1/triggers/:triggerId/runs/:runId',
    doc: {
      ...READ_DOC,
      summary: 'One firing: per-subscriber results (started / skipped / failed with code), outcome, unused credential integration ids.',
      operationId: 'getTriggerRun',
      responses: { 200: { description: 'the firing', schema: Run }, 404: TRIGGER_404 },
    },
    handler: async ({ caller, params }, services) => ({ status: 200, body: await services.triggerRuns.get(caller, params.triggerId ?? '', params.runId ?? '') }),
  }),
];
