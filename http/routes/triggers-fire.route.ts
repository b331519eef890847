// POST /api/v1/triggers/fire (sv_ key): fan one event out to a trigger's subscribers, with fire idempotency.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { fireBodySchema, IDEMPOTENCY_KEY_PATTERN } from '../../runtime/triggers/fire-request.js';
import { API_KEY } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';

const FireResponse = z.object({
  runId: z.uuid(),
  sessions: z.array(z.object({ automationId: z.uuid(), sessionId: z.uuid() })),
});

/** SPEC fire rule 6: one header, one value; it wins over the body's idempotencyKey. */
export const IdempotencyKeyHeader = z.object({
  'Idempotency-Key': z.string().regex(IDEMPOTENCY_KEY_PATTERN).optional().describe('1-128 of A-Z a-z 0-9 . _ : -; sent once, one value.'),
});

const keyRoute = declareRoutes(API_KEY);

export const triggersFireRoutes: Route<Services>[] = [
  keyRoute({
    method: 'POST',
    path: '/api/v1/triggers/fire',
    doc: {
      summary: 'Fire an active API trigger: one session per subscriber start. Optional Idempotency-Key header (wins over body idempotencyKey).',
      operationId: 'fireTrigger',
      tags: ['triggers'],
      headers: IdempotencyKeyHeader,
      body: fireBodySchema,
      responses: {
        202: { description: 'accepted (a replay carries Idempotency-Replayed: true)', schema: FireResponse, headers: ['Idempotency-Replayed'] },
        400: { description: 'VALIDATION (body, or a repeated / comma-separated / malformed Idempotency-Key)' },
        403: { description: 'FORBIDDEN: the key owner cannot execute in the trigger\'s domain' },
        404: { description: 'NOT_FOUND: missing or invalid key, unknown or other organization\'s trigger, or not an active API trigger' },
        409: { description: 'IDEMPOTENCY_IN_PROGRESS (Retry-After: 2) or IDEMPOTENCY_KEY_REUSED', headers: ['Retry-After'] },
      },
    },
    async handler({ caller, body, idempotencyKey, request }, services) {
      // Rule 6: the header (parsed by the kernel) wins over the body's idempotencyKey.
      const answer = await services.fire.fire(caller, body, idempotencyKey ?? body.idempotencyKey ?? null, request.requestId);
      const headers: Record<string, string> = answer.replayed ? { 'idempotency-replayed': 'true' } : {};
      // The kernel's after-step: the 202 goes out before any engine work.
      return { status: 202, headers, body: answer.body, after: answer.dispatch };
    },
  }),
];
