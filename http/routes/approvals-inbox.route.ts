// The approvals inbox (issue 14 item 4): list what a person may decide across sessions and flow runs; decide a run approval.
import { z } from 'zod';
import { INBOX_PAGE, type InboxPage } from '../../runtime/sessions/approval-inbox.js';
import type { Services } from '../../runtime/services.js';
import { KEY_OR_CONSOLE } from '../credentials.js';
import type { Same } from '../openapi/same-type.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { ApprovalResponse, RunDecisionBody } from './sessions.schemas.js';

const InboxQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(INBOX_PAGE.maxLimit).default(INBOX_PAGE.defaultLimit),
  cursor: z.string().min(1).max(200).optional().describe('nextCursor of the previous page (opaque).'),
});

const InboxPageSchema = z
  .object({
    approvals: z.array(
      z.object({
        approvalId: z.uuid(),
        kind: z.enum(['turn', 'run', 'confirmation']).describe('`turn`/`confirmation`: decide at POST /sessions/:id/turn-approval (cookie) or /agents/sessions/:id/turn-approval (key); `run`: at POST /approvals/runs/:runId.'),
        sessionId: z.uuid(),
        sessionTitle: z.string().nullable(),
        runId: z.uuid().nullable().describe('For run approvals: the flow run (its session id).'),
        executionId: z.uuid(),
        automationId: z.uuid(),
        automationName: z.string(),
        automationKind: z.enum(['agent', 'flow']),
        domainId: z.uuid(),
        toolName: z.string().nullable(),
        args: z.unknown().describe('The arguments as proposed (caller credential material redacted).'),
        inputSchema: z.record(z.string(), z.unknown()).nullable().describe('The gated tool\'s JSON Schema input: editedArgs must satisfy it.'),
        editable: z.boolean().describe('Whether editedArgs may be sent (turn approvals of a known tool).'),
        requestedAt: z.iso.datetime(),
      }),
    ),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page.'),
  })
  .meta({ id: 'ApprovalInboxPage' });

const sameShape: Same<z.output<typeof InboxPageSchema>, InboxPage> = true;
void sameShape;

const route = declareRoutes(KEY_OR_CONSOLE);
const KEY_404 = { description: 'NOT_FOUND: missing or invalid key (or signed-out cookie), unknown, invisible or another organization\'s run (uniform)' };

export const approvalsInboxRoutes: Route<Services>[] = [
  route({
    method: 'GET',
    path: '/api/v1/approvals',
    doc: {
      summary:
        'Pending approvals the caller may decide, across agent sessions and flow runs, oldest first by cursor: sessions they can see, under the domain\'s current approval policy (or a user-routed call or confirmation they initiated). Each carries the proposed args and the tool\'s input schema.',
      operationId: 'listPendingApprovals',
      tags: ['approvals'],
      query: InboxQuery,
      responses: { 200: { description: 'a page of pending approvals', schema: InboxPageSchema }, 400: { description: 'VALIDATION: limit or cursor' }, 404: KEY_404 },
    },
    handler: async ({ caller, query }, services) => ({ status: 200, headers: { 'cache-control': 'no-store' }, body: await services.sessions.inbox.list(caller, query) }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/approvals/runs/:runId',
    uuidParams: ['runId'],
    doc: {
      summary: 'Decide the run approval a flow run waits on (runId: the run\'s session id or execution id); the turn-approval contract without editedArgs or callerCredentials.',
      operationId: 'decideRunApproval',
      tags: ['approvals'],
      body: RunDecisionBody,
      responses: {
        200: { description: 'decided; an approval queues the resume and returns at once', schema: ApprovalResponse },
        400: { description: 'VALIDATION (an unknown field such as editedArgs, comment over 2,000)' },
        403: { description: 'FORBIDDEN: visible run, but the caller may not decide its approval; or a cross-origin write with the cookie' },
        404: KEY_404,
        409: { description: 'APPROVAL_CONFLICT: nothing waits for a decision, or approvalId is stale or different' },
      },
    },
    async handler({ caller, params, body }, services) {
      const decided = await services.runApprovals.decide(caller, { runId: params.runId as string, decision: body.decision, comment: body.comment, approvalId: body.approvalId?.toLowerCase() });
      return { status: 200, body: decided };
    },
  }),
];
