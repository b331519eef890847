// GET /api/v1/triggers/choices (console cookie, sv_ key or svu_ token): what a new trigger may be attached to.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { triggerChoices } from '../../runtime/triggers/trigger-choices.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { manageDoc } from './manage.schemas.js';
import { managerOf } from './triggers-manage.route.js';

const TriggerChoices = z.object({
  domains: z.array(z.object({ domainId: z.uuid(), name: z.string(), canCreate: z.boolean().describe('Editor or owner there: may create triggers.') })),
  eventTriggersEnabled: z.boolean().describe('False when the organization\'s rollout flag turns event triggers off.'),
  eventSources: z.array(
    z.object({
      integrationId: z.string(),
      name: z.string(),
      events: z.array(z.object({ type: z.string(), payloadPaths: z.array(z.string()).describe('Fields an eventFilter may name, besides occurredAt and actor.*.') })),
      connections: z.array(z.object({ connectionId: z.uuid(), domainId: z.uuid().nullable().describe('null: serves every domain.') })),
    }),
  ),
});

export const triggerChoicesRoutes: Route<Services>[] = [
  declareRoutes(managerOf)({
    method: 'GET',
    path: '/api/v1/triggers/choices',
    doc: manageDoc('triggers', {
      operationId: 'getTriggerChoices',
      summary:
        'What the caller may attach a new trigger to: their domains (canCreate: editor or owner), and event sources — integrations ' +
        'with verifiable (standard-webhooks) catalog events and a connected connection in one of those domains or organization-wide.',
      responses: { 200: { description: 'domains and event sources', schema: TriggerChoices } },
    }),
    handler: async ({ caller }, services) => ({ status: 200, body: await triggerChoices(services.store.repos, caller) }),
  }),
];
