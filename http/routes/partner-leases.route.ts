// POST /api/partner/v1/token and /worker-token: one-hour `svt_` leases for one customer and app (a worker lease names a person).
import { z } from 'zod';
import { partnerSubjectSchema } from '../../runtime/partners/workers.service.js';
import type { Services } from '../../runtime/services.js';
import { PARTNER_KEY } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';

// Ids are checked for ownership, not shape: a malformed id is the same neutral 404 as a foreign one.
const id = (field: string) => z.string({ error: `${field} must be a string` }).min(1).max(100);
const AppLeaseBody = z.strictObject({ orgId: id('orgId'), appId: id('appId') });
const WorkerLeaseBody = z.strictObject({ orgId: id('orgId'), appId: id('appId'), partnerSubject: partnerSubjectSchema });

const LeaseResponse = z.object({
  token: z.string(),
  expiresAt: z.iso.datetime(),
  kind: z.enum(['app', 'worker']),
  orgId: z.uuid(),
  appId: z.uuid(),
  partnerSubject: z.string().optional(),
  mappingId: z.uuid().optional(),
  userId: z.uuid().optional(),
});

const RESPONSES = {
  200: { description: 'the lease (its secret is shown once)', schema: LeaseResponse },
  400: { description: 'VALIDATION' },
  401: { description: 'UNAUTHORIZED: missing or invalid svp_ key' },
  404: { description: 'NOT_FOUND: organization, app (or worker) unknown or not this platform\'s (indistinguishable)' },
};

const partnerRoute = declareRoutes(PARTNER_KEY);

export const partnerLeaseRoutes: Route<Services>[] = [
  partnerRoute({
    method: 'POST',
    path: '/api/partner/v1/token',
    doc: { summary: 'Mint a one-hour app lease for { orgId, appId }.', operationId: 'mintAppLease', tags: ['partner'], body: AppLeaseBody, responses: RESPONSES },
    handler: async ({ caller, body }, services) => ({ status: 200, headers: { 'cache-control': 'no-store' }, body: await services.partners.leases.mintAppLease(caller, body) }),
  }),
  partnerRoute({
    method: 'POST',
    path: '/api/partner/v1/worker-token',
    doc: {
      summary: 'Mint a one-hour named-worker lease for { orgId, appId, partnerSubject }; it acts as the vouched person.',
      operationId: 'mintWorkerLease',
      tags: ['partner'],
      body: WorkerLeaseBody,
      responses: RESPONSES,
    },
    handler: async ({ caller, body }, services) => ({ status: 200, headers: { 'cache-control': 'no-store' }, body: await services.partners.leases.mintWorkerLease(caller, body) }),
  }),
];
