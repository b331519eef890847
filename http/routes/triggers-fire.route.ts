// POST /api/v1/triggers/fire (sv_ key): fan one event out to a trigger's subscribers, with fire idempotency.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { fireBodySchema, IDEMPOTENCY_KEY_PATTERN, idempotencyKeyOf } from '../../runtime/triggers/fire-request.js';
import { requireApiKey } from '../auth.js';
import type { Route } from '../types.js';
import { parseBody } from '../validate.js';

const FireResponse = z.object({
  runId: z.uuid(),
  sessions: z.array(z.object({ automationId: z.uuid(), sessionId: z.uuid() })),
});

/** SPEC fire rule 6: one header, one value; it wins over the body's idempotencyKey. */
export const IdempotencyKeyHeader = z.object({
  'Idempotency-Key': z.string().regex(IDEMPOTENCY_KEY_PATTERN).optional().describe('1-128 of A-Z a-z 0-9 . _ : -; sent once, one value.'),
});

export const triggersFireRoutes: Route<Services>[] = [
  {
    method: 'POST',
    path: '/api/v1/triggers/fire',
    doc: {
      summary: 'Fire an active API trigger: one session per subscriber start. Optional Idempotency-Key header (wins over body idempotencyKey).',
      operationId: 'fireTrigger',
      tags: ['triggers'],
      security: ['apiKey'],
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
    async handler(request, services) {
      const principal = requireApiKey(request, services);
      const body = parseBody(request, fireBodySchema);
      const key = idempotencyKeyOf(request, body.idempotencyKey);
      const answer = await services.fire.fire(principal, body, key, request.requestId);
      // setImmediate runs after the kernel has written this reply: the 202 goes out before any engine work.
      setImmediate(answer.dispatch);
      const headers: Record<string, string> = answer.replayed ? { 'idempotency-replayed': 'true' } : {};
      return { status: 202, headers, body: answer.body };
    },
  },
];
