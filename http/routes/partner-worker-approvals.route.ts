// Worker approvals (worker `svt_` lease): list what the named worker may decide; decide a run or a turn approval.
import { workerApprovalsQuerySchema } from '../../runtime/partners/worker-approvals.service.js';
import type { Services } from '../../runtime/services.js';
import type { DecisionRequest } from '../../runtime/sessions/approval.service.js';
import { WORKER_LEASE } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { decisionOf } from './approvals.route.js';
import { WorkerApprovalsPageSchema } from './partner.schemas.js';
import { ApprovalBody, ApprovalResponse, RunDecisionBody } from './sessions.schemas.js';



const DECIDE_RESPONSES = {
  200: { description: 'decided; an approval queues the resume and returns at once', schema: ApprovalResponse },
  400: { description: 'VALIDATION' },
  401: { description: 'UNAUTHORIZED: missing, invalid or expired worker lease (an app lease too)' },
  403: { description: 'FORBIDDEN: visible, but this worker may not decide the approval' },
  404: { description: 'NOT_FOUND: unknown or invisible session or run' },
  409: { description: 'APPROVAL_CONFLICT: nothing waits for a decision, or approvalId is stale or different' },
};

const workerRoute = declareRoutes(WORKER_LEASE);

export const partnerWorkerApprovalRoutes: Route<Services>[] = [
  workerRoute({
    method: 'GET',
    path: '/api/partner/v1/worker/approvals',
    doc: {
      summary: 'Pending approvals the named worker may see and decide (oldest first); limit 1-100 (default 50), offset (default 0).',
      operationId: 'listWorkerApprovals',
      tags: ['partner'],
      query: workerApprovalsQuerySchema,
      responses: { 200: { description: 'a page of approvals', schema: WorkerApprovalsPageSchema }, 400: { description: 'VALIDATION' }, 401: { description: 'UNAUTHORIZED' } },
    },
    handler: async ({ caller, query }, services) => ({ status: 200, headers: { 'cache-control': 'no-store' }, body: await services.partners.workerApprovals.list(caller, query) }),
  }),
  workerRoute({
    method: 'POST',
    path: '/api/partner/v1/worker/approvals/runs/:runId',
    uuidParams: ['runId'],
    doc: {
      summary: 'Decide the run approval a flow run waits on (runId: the run\'s session id or execution id).',
      operationId: 'decideWorkerRunApproval',
      tags: ['partner'],
      body: RunDecisionBody,
      responses: DECIDE_RESPONSES,
    },
    async handler({ caller, params, body }, services) {
      const decision: DecisionRequest = { decision: body.decision, approvalId: body.approvalId?.toLowerCase(), comment: body.comment };
      return { status: 200, body: await services.partners.workerApprovals.decideRun(caller, params.runId as string, decision) };
    },
  }),
  workerRoute({
    method: 'POST',
    path: '/api/partner/v1/worker/approvals/sessions/:sessionId',
    uuidParams: ['sessionId'],
    doc: {
      summary: 'Decide the turn approval a session waits on; the personal-key route\'s contract.',
      operationId: 'decideWorkerTurnApproval',
      tags: ['partner'],
      body: ApprovalBody,
      responses: DECIDE_RESPONSES,
    },
    handler: async ({ caller, params, body }, services) => ({
      status: 200,
      body: await services.partners.workerApprovals.decideTurn(caller, params.sessionId as string, decisionOf(body)),
    }),
  }),
];
