// GET /api/v1/org/operations: the console's operations view (issue 14 item 8), a snapshot the page polls.
import { z } from 'zod';
import { operationsSnapshot } from '../../runtime/management/operations.service.js';
import type { Services } from '../../runtime/services.js';
import type { Route } from '../types.js';
import { manageErrors, manageRoute } from './manage-route.js';

const count = z.number().int().min(0);
const OperationsSchema = z
  .object({
    at: z.iso.datetime().describe('When the snapshot was taken.'),
    organization: z
      .object({
        turns: z
          .object({ queued: count, running: count, resumeQueued: count.describe('Approved or answered, waiting to run again.'), suspended: count.describe('Waiting on a pending approval.') })
          .describe('Agent turns and flow runs of this organization by state.'),
        pendingApprovals: count,
        fires: z.object({ windowSeconds: count, count: count.describe('Accepted fires (Run history records) in the window.'), perSecond: z.number().min(0) }),
        webhooks: z
          .object({ windowHours: count, failed: count.describe('Deliveries that failed for good.'), retrying: count.describe('Deliveries waiting for another attempt after a failed one.'), lastFailureAt: z.iso.datetime().nullable() })
          .describe('Outbound webhook deliveries created in the window.'),
      })
      .describe('Counts of this organization only.'),
    process: z
      .object({
        openStreams: count.describe('Open session event streams (SSE) on this process.'),
        streamedSessions: count.describe('Sessions with at least one open stream on this process.'),
        queuedExecutions: count.describe('Executions admitted and not yet started, on this process.'),
        queueLimit: count.describe('The admission limit on queued executions (429 OVERLOADED past it).'),
      })
      .describe('Shared by every organization on this service process: not scoped to this organization.'),
  })
  .meta({ id: 'OperationsSnapshot' });

export const operationsRoutes: Route<Services>[] = [
  manageRoute({
    method: 'GET',
    path: '/api/v1/org/operations',
    doc: {
      tags: ['organization'],
      summary: 'What runs right now: the organization\'s queued, running and suspended turns, fires per second, webhook failures, and process-wide open streams. Owners and Admins.',
      operationId: 'getOperations',
      responses: { 200: { description: 'a snapshot', schema: OperationsSchema }, ...manageErrors() },
    },
    handler: async ({ caller }, services) => ({ status: 200, headers: { 'cache-control': 'no-store' }, body: await operationsSnapshot({ store: services.store, clock: services.clock, events: services.events, admission: services.admission }, caller) }),
  }),
];
