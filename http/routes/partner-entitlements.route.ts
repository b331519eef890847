// Entitlements of one customer: read default/override/resolved per agent and flow, set or clear an override.
import { z } from 'zod';
import { entitlementBodySchema } from '../../runtime/partners/entitlements.js';
import type { Services } from '../../runtime/services.js';
import { PARTNER_KEY } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import { EntitlementSchema } from './partner.schemas.js';
import type { Route } from '../types.js';

const ORG = '/api/partner/v1/organizations/:orgId';
const ENTITLEMENT = `${ORG}/automations/:automationId/entitlement`;
const NEUTRAL_404 = { description: 'NOT_FOUND: unknown or another platform\'s organization or automation (indistinguishable)' };
const ENTITLEMENT_ANSWER = z.object({ entitlement: EntitlementSchema });
const partnerRoute = declareRoutes(PARTNER_KEY);

export const partnerEntitlementRoutes: Route<Services>[] = [
  partnerRoute({
    method: 'GET',
    path: `${ORG}/entitlements`,
    doc: {
      summary: 'Default, override and resolved standing of each agent and flow.',
      operationId: 'listEntitlements',
      tags: ['partner'],
      responses: { 200: { description: 'entitlements', schema: z.object({ entitlements: z.array(EntitlementSchema) }) }, 401: { description: 'UNAUTHORIZED' }, 404: NEUTRAL_404 },
    },
    handler: async ({ caller, params }, services) => ({ status: 200, body: { entitlements: await services.partners.entitlements.list(caller, params.orgId ?? '') } }),
  }),
  partnerRoute({
    method: 'PATCH',
    path: ENTITLEMENT,
    doc: {
      summary: 'Set this customer\'s override { enabled } for one agent or flow.',
      operationId: 'setEntitlementOverride',
      tags: ['partner'],
      body: entitlementBodySchema,
      responses: { 200: { description: 'the entitlement', schema: ENTITLEMENT_ANSWER }, 400: { description: 'VALIDATION' }, 401: { description: 'UNAUTHORIZED' }, 404: NEUTRAL_404 },
    },
    async handler({ caller, params, body }, services) {
      const entitlement = await services.partners.entitlements.setOverride(caller, params.orgId ?? '', params.automationId ?? '', body.enabled);
      return { status: 200, body: { entitlement } };
    },
  }),
  partnerRoute({
    method: 'DELETE',
    path: ENTITLEMENT,
    doc: {
      summary: 'Clear the override: the platform default applies again.',
      operationId: 'clearEntitlementOverride',
      tags: ['partner'],
      responses: { 200: { description: 'the entitlement', schema: ENTITLEMENT_ANSWER }, 401: { description: 'UNAUTHORIZED' }, 404: NEUTRAL_404 },
    },
    async handler({ caller, params }, services) {
      const entitlement = await services.partners.entitlements.clearOverride(caller, params.orgId ?? '', params.automationId ?? '');
      return { status: 200, body: { entitlement } };
    },
  }),
];
