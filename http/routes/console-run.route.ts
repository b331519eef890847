// The product's Run and Test run buttons (SPEC caller credentials rule 9): open a session on a published agent from
// the console cookie, never with caller credentials.
import { z } from 'zod';
import { AppError } from '../../runtime/errors.js';
import type { Services } from '../../runtime/services.js';
import { CONSOLE } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { MESSAGE_MAX_LENGTH, OpenResponse } from './sessions.schemas.js';

export const RUN_REFUSES_CREDENTIALS =
  'Run and Test run never carry caller credentials (SPEC caller credentials rule 9); to run with your own credentials, ' +
  'open the session through POST /api/v1/agents/{automationId}/sessions with callerCredentials.';

/** Strict, and `callerCredentials` is named in the refusal rather than reported as just another unknown field. */
export const RunBody = z.strictObject(
  {
    message: z.string().trim().min(1).max(MESSAGE_MAX_LENGTH),
    mode: z
      .enum(['run', 'test'])
      .optional()
      .describe('`run` (default): a domain session the domain\'s members see; `test`: a personal session only you see.'),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' && issue.keys.includes('callerCredentials') ? RUN_REFUSES_CREDENTIALS : undefined) },
);

export const consoleRunRoutes: Route<Services>[] = [
  declareRoutes(CONSOLE)({
    method: 'POST',
    path: '/api/v1/console/agents/:automationId/run',
    uuidParams: ['automationId'],
    doc: {
      summary:
        'The console\'s Run (mode run: a domain session) and Test run (mode test: a personal session only you see) buttons: ' +
        'open a session on the agent\'s published revision with a first message. They refuse caller credentials (SPEC caller credentials rule 9).',
      operationId: 'consoleRunAgent',
      tags: ['console'],
      body: RunBody,
      responses: {
        202: { description: 'accepted: the session and its first turn are durable', schema: OpenResponse },
        400: { description: 'VALIDATION: also any callerCredentials field, which these buttons refuse' },
        401: { description: 'UNAUTHORIZED: no console session' },
        403: { description: 'FORBIDDEN: you cannot run automations in the agent\'s domain' },
        404: { description: 'NOT_FOUND: unknown id, another organization\'s, a flow, or an agent with no published revision' },
        422: { description: 'CALLER_CREDENTIALS_REQUIRED: the agent requires its callers\' own credentials, which these buttons never send' },
      },
    },
    async handler({ caller, params, body }, services) {
      const request = { message: body.message, origin: 'console' as const, visibility: body.mode === 'test' ? ('personal' as const) : ('domain' as const) };
      try {
        return { status: 202, body: await services.sessions.conversations.open(caller, params.automationId as string, request) };
      } catch (error) {
        // Say why here: the person pressed a button and cannot add credentials to it.
        if (error instanceof AppError && error.code === 'CALLER_CREDENTIALS_REQUIRED') {
          throw new AppError('CALLER_CREDENTIALS_REQUIRED', `This agent requires its callers' own credentials. ${RUN_REFUSES_CREDENTIALS}`, error.details);
        }
        throw error;
      }
    },
  }),
];
