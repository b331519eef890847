// Worker approvals (worker `svt_` lease): list what the named worker may decide; decide a run or a turn approval.
import { z } from 'zod';
import { workerApprovalsQuerySchema } from '../../runtime/partners/worker-approvals.service.js';
import type { Services } from '../../runtime/services.js';
import type { DecisionRequest } from '../../runtime/sessions/approval.service.js';
import { requireWorkerLease } from '../partner-auth.js';
import type { Route } from '../types.js';
import { parseBody, parseWith, uuidParam } from '../validate.js';
import { decisionOf } from './approvals.route.js';
import { WorkerApprovalsPageSchema } from './partner.schemas.js';
import { ApprovalBody, ApprovalResponse, COMMENT_MAX_LENGTH } from './sessions.schemas.js';

/** A run approval has no tool arguments to edit and no caller credentials to replace: decision, comment, approvalId. */
const RunDecisionBody = z.strictObject({
  decision: z.enum(['approved', 'rejected']),
  approvalId: z.uuid().optional(),
  comment: z.string().max(COMMENT_MAX_LENGTH).optional(),
});


const DECIDE_RESPONSES = {
  200: { description: 'decided; an approval queues the resume and returns at once', schema: ApprovalResponse },
  400: { description: 'VALIDATION' },
  401: { description: 'UNAUTHORIZED: missing, invalid or expired worker lease (an app lease too)' },
  403: { description: 'FORBIDDEN: visible, but this worker may not decide the approval' },
  404: { description: 'NOT_FOUND: unknown or invisible session or run' },
  409: { description: 'APPROVAL_CONFLICT: nothing waits for a decision, or approvalId is stale or different' },
};

export const partnerWorkerApprovalRoutes: Route<Services>[] = [
  {
    method: 'GET',
    path: '/api/partner/v1/worker/approvals',
    doc: {
      summary: 'Pending approvals the named worker may see and decide (oldest first); limit 1-100 (default 50), offset (default 0).',
      operationId: 'listWorkerApprovals',
      tags: ['partner'],
      security: ['lease'],
      query: workerApprovalsQuerySchema,
      responses: { 200: { description: 'a page of approvals', schema: WorkerApprovalsPageSchema }, 400: { description: 'VALIDATION' }, 401: { description: 'UNAUTHORIZED' } },
    },
    handler(request, services) {
      const lease = requireWorkerLease(request, services);
      const page = parseWith(workerApprovalsQuerySchema, Object.fromEntries(request.query));
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: services.partners.workerApprovals.list(lease, page) };
    },
  },
  {
    method: 'POST',
    path: '/api/partner/v1/worker/approvals/runs/:runId',
    doc: {
      summary: 'Decide the run approval a flow run waits on (runId: the run\'s session id or execution id).',
      operationId: 'decideWorkerRunApproval',
      tags: ['partner'],
      security: ['lease'],
      body: RunDecisionBody,
      responses: DECIDE_RESPONSES,
    },
    async handler(request, services) {
      const lease = requireWorkerLease(request, services);
      const runId = uuidParam(request, 'runId');
      const body = parseBody(request, RunDecisionBody);
      const decision: DecisionRequest = { decision: body.decision, approvalId: body.approvalId?.toLowerCase(), comment: body.comment };
      return { status: 200, body: await services.partners.workerApprovals.decideRun(lease, runId, decision) };
    },
  },
  {
    method: 'POST',
    path: '/api/partner/v1/worker/approvals/sessions/:sessionId',
    doc: {
      summary: 'Decide the turn approval a session waits on; the personal-key route\'s contract.',
      operationId: 'decideWorkerTurnApproval',
      tags: ['partner'],
      security: ['lease'],
      body: ApprovalBody,
      responses: DECIDE_RESPONSES,
    },
    async handler(request, services) {
      const lease = requireWorkerLease(request, services);
      const sessionId = uuidParam(request, 'sessionId');
      const decision = decisionOf(request);
      return { status: 200, body: await services.partners.workerApprovals.decideTurn(lease, sessionId, decision) };
    },
  },
];
