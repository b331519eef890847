// Turn approval: the `sv_` key route and the console route (cookie), one contract (SPEC conversations rule 5).
import type { Services } from '../../runtime/services.js';
import type { DecisionRequest } from '../../runtime/sessions/approval.service.js';
import { normalizeCallerCredentials } from '../../runtime/vault/index.js';
import type { z } from 'zod';
import { API_KEY, CONSOLE } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { ApprovalBody, ApprovalResponse } from './sessions.schemas.js';

/** The turn-approval body as the approval service takes it; shared by every route that decides a turn approval. */
export function decisionOf(body: z.output<typeof ApprovalBody>): DecisionRequest {
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
  declareRoutes(API_KEY)({
    method: 'POST',
    path: '/api/v1/agents/sessions/:sessionId/turn-approval',
    uuidParams: ['sessionId'],
    doc: {
      summary: 'Approve or reject the write-tool call a turn waits on.',
      operationId: 'decideTurnApproval',
      tags: ['conversations'],
      body: ApprovalBody,
      responses: RESPONSES,
    },
    handler: async ({ caller, params, body }, services) => ({
      status: 200,
      body: await services.sessions.approvals.decide(caller, params.sessionId as string, decisionOf(body)),
    }),
  }),
  declareRoutes(CONSOLE)({
    method: 'POST',
    path: '/api/v1/sessions/:id/turn-approval',
    uuidParams: ['id'],
    doc: {
      summary: 'The console\'s turn approval (service_session cookie); same contract as the personal-key route.',
      operationId: 'consoleDecideTurnApproval',
      tags: ['console'],
      body: ApprovalBody,
      responses: { ...RESPONSES, 401: { description: 'UNAUTHORIZED: no console session' } },
    },
    handler: async ({ caller, params, body }, services) => ({
      status: 200,
      body: await services.sessions.approvals.decide(caller, params.id as string, decisionOf(body)),
    }),
  }),
];
