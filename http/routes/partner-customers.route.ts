// A partner's customers (issue 13 item 6): paged list, suspend/resume, the support grants a customer gave.
import type { Services } from '../../runtime/services.js';
import { PARTNER_KEY } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { CustomerPageSchema, PageQuery, SupportGrantPageSchema } from './org-manage.schemas.js';
import { CustomerStatusSchema } from './partner.schemas.js';

const ORG = '/api/partner/v1/organizations';
const partnerRoute = declareRoutes(PARTNER_KEY);
const noStore = { 'cache-control': 'no-store' };
const common = {
  401: { description: 'UNAUTHORIZED: missing, invalid or revoked svp_ key' },
  404: { description: 'NOT_FOUND: unknown or another platform\'s organization (indistinguishable)' },
};

const suspension = (suspended: boolean) =>
  partnerRoute({
    method: 'POST',
    path: `${ORG}/:orgId/${suspended ? 'suspend' : 'resume'}`,
    doc: {
      summary: suspended
        ? 'Suspend a customer at once: its people\'s sv_ keys, svu_ tokens and console sessions, the platform\'s leases of it, its tenant calls and its schedule and event fires stop until it is resumed. Idempotent.'
        : 'Resume a suspended customer: everything suspension stopped works again (nothing was deleted). Idempotent.',
      operationId: suspended ? 'suspendCustomer' : 'resumeCustomer',
      tags: ['partner'],
      responses: { 200: { description: 'the customer\'s status after the change', schema: CustomerStatusSchema }, ...common },
    },
    handler: async ({ caller, params }, services) => ({
      status: 200,
      headers: noStore,
      body: await services.management.customers.setSuspended(caller.partnerId, params.orgId ?? '', suspended),
    }),
  });

export const partnerCustomerRoutes: Route<Services>[] = [
  partnerRoute({
    method: 'GET',
    path: ORG,
    doc: {
      summary: 'This platform\'s customer organizations, oldest first, one page at a time (keyset cursor).',
      operationId: 'listCustomers',
      tags: ['partner'],
      query: PageQuery,
      responses: { 200: { description: 'a page of customers', schema: CustomerPageSchema }, 400: { description: 'VALIDATION: bad limit or cursor' }, 401: common[401] },
    },
    async handler({ caller, query, request }, services) {
      const page = await services.management.customers.list(caller.partnerId, query);
      return { status: 200, headers: noStore, body: { customers: page.items, nextCursor: page.nextCursor } };
    },
  }),
  suspension(true),
  suspension(false),
  partnerRoute({
    method: 'GET',
    path: `${ORG}/:orgId/support-grants`,
    doc: {
      summary: 'The support grants a customer gave this platform (active, expired and revoked), oldest first, paged.',
      operationId: 'listCustomerSupportGrants',
      tags: ['partner'],
      query: PageQuery,
      responses: { 200: { description: 'a page of grants', schema: SupportGrantPageSchema }, 400: { description: 'VALIDATION: bad limit or cursor' }, ...common },
    },
    async handler({ caller, query, params, request }, services) {
      const page = await services.management.customers.supportGrants(caller.partnerId, params.orgId ?? '', query);
      return { status: 200, headers: noStore, body: { grants: page.items, nextCursor: page.nextCursor } };
    },
  }),
];
