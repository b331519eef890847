// POST /api/v1/triggers (console cookie): create a schedule, api or event trigger with its subscribers, atomically.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { CreateTriggerBody } from '../../runtime/triggers/trigger-create.schema.js';
import { CONSOLE } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { HttpRequest, Route } from '../types.js';

export const TriggerRecord = z.object({
  id: z.uuid(),
  type: z.enum(['schedule', 'api', 'event']),
  domainId: z.uuid(),
  name: z.string(),
  active: z.boolean(),
  subscribers: z.array(z.uuid()),
  config: z.record(z.string(), z.unknown()),
  deliveryUrl: z.string().optional(),
  createdBy: z.uuid().nullable(),
  createdAt: z.iso.datetime(),
});

/** Where an event trigger's deliveryUrl points: the configured public URL, else the address this request used. */
export function baseUrlOf(request: HttpRequest, services: Services): string | null {
  if (services.config.publicUrl) return services.config.publicUrl.replace(/\/+$/, '');
  const host = request.headers.host;
  if (!host || !/^[A-Za-z0-9.\-:[\]]+$/.test(host)) return null;
  return `${request.secure ? 'https' : 'http'}://${host}`;
}

export const triggersAdminRoutes: Route<Services>[] = [
  declareRoutes(CONSOLE)({
    method: 'POST',
    path: '/api/v1/triggers',
    doc: {
      summary:
        'Create a trigger (discriminated on type: schedule, api, event) with optional subscribers (agent/flow ids of its domain). ' +
        'An event trigger without endpointSecret gets one minted and returned once.',
      operationId: 'createTrigger',
      tags: ['triggers'],
      body: CreateTriggerBody,
      responses: {
        201: { description: 'created', schema: z.object({ trigger: TriggerRecord, endpointSecret: z.string().optional() }) },
        400: { description: 'VALIDATION: body, cron, event type, connection, filter or subscribers' },
        401: { description: 'UNAUTHORIZED: no console session with an organization selected' },
        403: { description: 'FORBIDDEN: not an editor or owner of the domain, or event triggers not enabled for the organization' },
        404: { description: 'NOT_FOUND: domain, subscriber, integration or connection unknown or of another organization' },
        409: { description: 'CONFLICT (details.reason automation_archived): a subscriber is archived' },
      },
    },
    async handler({ caller, body, request }, services) {
      const created = await services.triggerAdmin.create(caller, body, baseUrlOf(request, services));
      return { status: 201, headers: { 'cache-control': 'no-store' }, body: created };
    },
  }),
];
