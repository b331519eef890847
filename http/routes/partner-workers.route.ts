// Worker mappings of one customer: list, vouch (partnerSubject + domain roles), revoke.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { vouchBodySchema } from '../../runtime/partners/workers.service.js';
import { PARTNER_KEY } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { WorkerSchema } from './partner.schemas.js';

const WorkerAnswer = z.object({ worker: WorkerSchema });

const PATH = '/api/partner/v1/organizations/:orgId/workers';
const NEUTRAL_404 = { description: 'NOT_FOUND: unknown or another platform\'s organization or mapping (indistinguishable)' };
const partnerRoute = declareRoutes(PARTNER_KEY);

export const partnerWorkerRoutes: Route<Services>[] = [
  partnerRoute({
    method: 'GET',
    path: PATH,
    doc: {
      summary: 'Active worker mappings of this customer.',
      operationId: 'listWorkers',
      tags: ['partner'],
      responses: { 200: { description: 'workers', schema: z.object({ workers: z.array(WorkerSchema) }) }, 401: { description: 'UNAUTHORIZED' }, 404: NEUTRAL_404 },
    },
    handler: async ({ caller, params }, services) => ({ status: 200, body: { workers: await services.partners.workers.list(caller, params.orgId ?? '') } }),
  }),
  partnerRoute({
    method: 'POST',
    path: PATH,
    doc: {
      summary: 'Vouch a named worker: partnerSubject and domain roles (and approver standing); re-vouching an active subject replaces its roles.',
      operationId: 'vouchWorker',
      tags: ['partner'],
      body: vouchBodySchema,
      responses: {
        201: { description: 'mapping created', schema: WorkerAnswer },
        200: { description: 'the subject\'s active mapping updated', schema: WorkerAnswer },
        400: { description: 'VALIDATION (including a domain outside this organization)' },
        401: { description: 'UNAUTHORIZED' },
        404: NEUTRAL_404,
        409: { description: 'CONFLICT: email belongs to an account outside this organization' },
      },
    },
    async handler({ caller, params, body }, services) {
      const { worker, created } = await services.partners.workers.vouch(caller, params.orgId ?? '', body);
      return { status: created ? 201 : 200, body: { worker } };
    },
  }),
  partnerRoute({
    method: 'DELETE',
    path: `${PATH}/:mappingId`,
    doc: {
      summary: 'Revoke a mapping: its leases stop at once.',
      operationId: 'revokeWorker',
      tags: ['partner'],
      responses: { 204: { description: 'revoked' }, 401: { description: 'UNAUTHORIZED' }, 404: NEUTRAL_404 },
    },
    async handler({ caller, params }, services) {
      await services.partners.workers.revoke(caller, params.orgId ?? '', params.mappingId ?? '');
      return { status: 204 };
    },
  }),
];
