// Outbound webhook endpoints (console cookie): register (signing secret returned once), list, delete, delivery log.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { WEBHOOK_EVENT_TYPES } from '../../runtime/webhooks/run-payload.js';
import { DELIVERIES_PAGE_DEFAULT, DELIVERIES_PAGE_MAX, type DeliveryView, type WebhookView } from '../../runtime/webhooks/webhook-endpoints.service.js';
import { WEBHOOK_URL_MAX_LENGTH } from '../../runtime/webhooks/webhook-url.js';
import { CONSOLE } from '../credentials.js';
import type { Same } from '../openapi/same-type.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';

const RegisterBody = z.strictObject({
  url: z.string().min(1).max(WEBHOOK_URL_MAX_LENGTH),
  /** Default: every event type (today only trigger.run.completed). */
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length).optional(),
});

const DeliveriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(DELIVERIES_PAGE_MAX).default(DELIVERIES_PAGE_DEFAULT),
  cursor: z.string().min(1).max(200).optional(),
});

const Webhook = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  createdBy: z.uuid().nullable(),
  createdAt: z.iso.datetime(),
});

const Delivery = z.object({
  id: z.uuid(),
  eventType: z.string(),
  runId: z.uuid().nullable(),
  status: z.string(),
  attempts: z.number().int(),
  nextAttemptAt: z.iso.datetime().nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  payload: z.unknown().describe('The signed body, as sent.'),
  attemptLog: z.array(z.object({ attempt: z.number().int(), at: z.iso.datetime(), statusCode: z.number().int().nullable(), error: z.string().nullable(), durationMs: z.number() })),
});

// tsc fails here when a documented body and the service's view drift apart.
const documented: [Same<z.output<typeof Webhook>, WebhookView>, Same<z.output<typeof Delivery>, DeliveryView>] = [true, true];
void documented;

const UNAUTHORIZED = { description: 'UNAUTHORIZED: no console session with an organization selected' };

const DOC = { tags: ['webhooks'] };
const consoleRoute = declareRoutes(CONSOLE);

export const webhooksRoutes: Route<Services>[] = [
  consoleRoute({
    method: 'POST',
    path: '/api/v1/webhooks',
    doc: {
      ...DOC,
      summary: 'Register a webhook endpoint (organization owner/admin). The Standard Webhooks signing secret is returned once.',
      operationId: 'registerWebhook',
      body: RegisterBody,
      responses: {
        201: { description: 'registered', schema: z.object({ webhook: Webhook, secret: z.string() }) },
        400: { description: 'VALIDATION: body, or a URL that is not http(s), carries credentials, or is a private/loopback address' },
        401: UNAUTHORIZED,
        403: { description: 'FORBIDDEN: not an organization owner or admin' },
      },
    },
    handler: async ({ caller, body }, services) => ({ status: 201, headers: { 'cache-control': 'no-store' }, body: await services.webhooks.register(caller, body) }),
  }),
  consoleRoute({
    method: 'GET',
    path: '/api/v1/webhooks',
    doc: {
      ...DOC,
      summary: 'The organization\'s webhook endpoints (never their secrets).',
      operationId: 'listWebhooks',
      responses: { 200: { description: 'endpoints', schema: z.object({ webhooks: z.array(Webhook) }) }, 401: UNAUTHORIZED },
    },
    handler: async ({ caller }, services) => ({ status: 200, body: await services.webhooks.list(caller) }),
  }),
  consoleRoute({
    method: 'DELETE',
    path: '/api/v1/webhooks/:webhookId',
    doc: {
      ...DOC,
      summary: 'Delete an endpoint with its pending deliveries and delivery log.',
      operationId: 'deleteWebhook',
      responses: { 204: { description: 'deleted' }, 401: UNAUTHORIZED, 404: { description: 'NOT_FOUND' } },
    },
    async handler({ caller, params }, services) {
      await services.webhooks.remove(caller, params.webhookId ?? '');
      return { status: 204 };
    },
  }),
  consoleRoute({
    method: 'GET',
    path: '/api/v1/webhooks/:webhookId/deliveries',
    doc: {
      ...DOC,
      summary: 'Delivery log of an endpoint, newest first: status, attempts with their HTTP status or failure, next attempt time.',
      operationId: 'listWebhookDeliveries',
      query: DeliveriesQuery,
      responses: {
        200: { description: 'a page of deliveries', schema: z.object({ deliveries: z.array(Delivery), nextCursor: z.string().nullable() }) },
        400: { description: 'VALIDATION: limit or cursor' },
        401: UNAUTHORIZED,
        404: { description: 'NOT_FOUND' },
      },
    },
    handler: async ({ caller, params, query }, services) => ({ status: 200, body: await services.webhooks.deliveries(caller, params.webhookId ?? '', query) }),
  }),
];
