// POST /api/v1/events/:triggerId: a provider delivers an event to an event trigger (Standard Webhooks signature).
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { PUBLIC } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';

const DeliveryAnswer = z.object({
  status: z.enum(['fired', 'skipped']),
  runId: z.uuid().optional(),
  sessions: z.array(z.object({ automationId: z.uuid(), sessionId: z.uuid() })).optional(),
  reason: z.enum(['EVENT_TYPE_MISMATCH', 'FILTER_MISS']).optional(),
  duplicate: z.literal(true).optional(),
});

/** Standard Webhooks headers: the signature covers `${webhook-id}.${webhook-timestamp}.${body}`. */
const DeliveryHeaders = z.object({
  'webhook-id': z.string().describe('Unique per delivery; a repeated id is answered with the first answer (duplicate: true).'),
  'webhook-timestamp': z.string().regex(/^\d+$/).describe('Unix seconds; refused outside 5 minutes of the service clock.'),
  'webhook-signature': z.string().describe('Space-separated `v1,<base64 HMAC-SHA256>` signatures with the endpointSecret.'),
});

/** Public to the kernel: the Standard Webhooks signature over the raw body is the credential, checked by the service. */
const signedRoute = declareRoutes(PUBLIC);

export const eventDeliveryRoutes: Route<Services>[] = [
  signedRoute({
    method: 'POST',
    path: '/api/v1/events/:triggerId',
    doc: {
      summary:
        'Inbound event for an event trigger, signed with its endpointSecret (webhook-id, webhook-timestamp, webhook-signature). ' +
        'Fans out to the subscribers without caller credentials, unless the event type or filter does not match (recorded skip).',
      operationId: 'deliverEvent',
      tags: ['triggers'],
      headers: DeliveryHeaders,
      responses: {
        202: { description: 'fired, skipped (recorded) or a duplicate webhook-id (the first answer)', schema: DeliveryAnswer },
        400: { description: 'VALIDATION: the body is not a JSON object, or webhook-id is too long' },
        401: { description: 'UNAUTHORIZED: missing or wrong signature, or a timestamp outside 5 minutes' },
        404: { description: 'NOT_FOUND: no active event trigger has this id' },
      },
    },
    async handler({ params, request }, services) {
      const answer = await services.eventDeliveries.deliver(params.triggerId ?? '', request.headers, request.body);
      // The kernel's after-step: the 202 goes out before any engine work.
      return { status: 202, body: answer.body, after: answer.dispatch };
    },
  }),
];
