// Cancel a session's queued, running or suspended execution, an agent turn or a flow run (issue 13 item 1).
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { KEY_OR_CONSOLE } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';

export const CancelBody = z.strictObject({
  executionId: z.uuid().optional().describe('The execution to cancel; default: the session\'s oldest unsettled one (the one its queue waits on).'),
});

export const CancelResponse = z.object({ executionId: z.uuid(), status: z.literal('cancelled') });

const keyRoute = declareRoutes(KEY_OR_CONSOLE);

export const sessionCancelRoutes: Route<Services>[] = [
  keyRoute({
    method: 'POST',
    path: '/api/v1/agents/sessions/:sessionId/cancel',
    uuidParams: ['sessionId'],
    allowEmptyBody: true,
    doc: {
      summary:
        'Cancel a queued, running or suspended turn (or a flow run): it settles as cancelled (stream turn.completed with outcome cancelled), an in-flight model or tool call is aborted, the caller-credential grant is deleted, a pending approval closes (its approvalId then gets 409) and the next queued message runs. Repeating the cancel of a cancelled execution answers 200 again.',
      operationId: 'cancelExecution',
      tags: ['conversations'],
      body: CancelBody,
      responses: {
        200: { description: 'cancelled (also when this execution was already cancelled)', schema: CancelResponse },
        400: { description: 'VALIDATION' },
        403: { description: 'SESSION_NOT_DRIVABLE: visible, but the key owner may not drive this session' },
        404: { description: 'NOT_FOUND: missing or invalid key, unknown session or execution, or another organization\'s id (uniform)' },
        409: { description: 'CONFLICT: the execution already finished otherwise, or nothing is unsettled in the session' },
      },
    },
    async handler({ caller, body, params }, services) {
      const sessionId = params.sessionId as string;
      return { status: 200, body: await services.sessions.cancels.cancel(caller, sessionId, body.executionId) };
    },
  }),
];
