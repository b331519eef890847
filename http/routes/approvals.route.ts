// Turn approval: the `sv_` key route and the console route (cookie), one contract (SPEC conversations rule 5).
import type { Services } from '../../runtime/services.js';
import type { DecisionRequest } from '../../runtime/sessions/approval.service.js';
import { normalizeCallerCredentials } from '../../runtime/vault/index.js';
import { requireApiKey, requireConsole } from '../auth.js';
import type { HttpRequest, Route } from '../types.js';
import { parseBody, uuidParam } from '../validate.js';
import { ApprovalBody, ApprovalResponse } from './sessions.schemas.js';

/** The turn-approval body as the approval service takes it; shared by every route that decides a turn approval. */
export function decisionOf(request: HttpRequest): DecisionRequest {
  const body = parseBody(request, ApprovalBody);
  return {
    decision: body.decision,
    approvalId: body.approvalId?.toLowerCase(),
    comment: body.comment,
    editedArgs: body.editedArgs,
    callerCredentials: body.callerCredentials && normalizeCallerCredentials(body.callerCredentials),
  };
}


const RESPONSES = {
  200: { description: 'decided; an approval queues the resume and returns at once', schema: ApprovalResponse },
  400: { description: 'VALIDATION (editedArgs with "rejected", comment over 2,000, editedArgs not fitting the tool)' },
  403: { description: 'FORBIDDEN: visible session, but the caller may not decide this approval' },
  404: { description: 'NOT_FOUND: unknown, invisible or another organization\'s session' },
  409: { description: 'APPROVAL_CONFLICT: nothing waits for a decision, or approvalId is stale or different' },
};

export const approvalsRoutes: Route<Services>[] = [
  {
    method: 'POST',
    path: '/api/v1/agents/sessions/:sessionId/turn-approval',
    doc: {
      summary: 'Approve or reject the write-tool call a turn waits on.',
      operationId: 'decideTurnApproval',
      tags: ['conversations'],
      security: ['apiKey'],
      body: ApprovalBody,
      responses: RESPONSES,
    },
    async handler(request, services) {
      const principal = requireApiKey(request, services);
      const sessionId = uuidParam(request, 'sessionId');
      return { status: 200, body: await services.sessions.approvals.decide(principal, sessionId, decisionOf(request)) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/sessions/:id/turn-approval',
    doc: {
      summary: 'The console\'s turn approval (service_session cookie); same contract as the personal-key route.',
      operationId: 'consoleDecideTurnApproval',
      tags: ['console'],
      security: ['cookie'],
      body: ApprovalBody,
      responses: { ...RESPONSES, 401: { description: 'UNAUTHORIZED: no console session' } },
    },
    async handler(request, services) {
      const principal = requireConsole(request, services);
      const sessionId = uuidParam(request, 'id');
      return { status: 200, body: await services.sessions.approvals.decide(principal, sessionId, decisionOf(request)) };
    },
  },
];
