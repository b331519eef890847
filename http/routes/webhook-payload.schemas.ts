// The outbound `trigger.run.completed` webhook body as a schema: the OpenAPI document's `webhooks` section.
import { z } from 'zod';
import type { RunCompletedPayload } from '../../runtime/webhooks/run-payload.js';
import type { Same } from '../openapi/same-type.js';

export const RunCompletedPayloadSchema = z
  .object({
    type: z.literal('trigger.run.completed'),
    timestamp: z.iso.datetime(),
    data: z.object({
      runId: z.uuid(),
      triggerId: z.uuid(),
      triggerName: z.string().nullable(),
      triggerType: z.string().nullable(),
      source: z.string(),
      firedAt: z.iso.datetime(),
      settledAt: z.iso.datetime(),
      outcome: z.string().describe('The Run history outcome decided at fire time.'),
      result: z.enum(['succeeded', 'partial', 'failed', 'skipped']).describe('The same rule applied once the work finished.'),
      subscribers: z.array(
        z.object({
          automationId: z.uuid(),
          start: z.enum(['started', 'skipped', 'failed']),
          code: z.string().nullable(),
          sessionId: z.uuid().nullable(),
          sessionStatus: z.string().nullable(),
          errorCode: z.string().nullable(),
        }),
      ),
    }),
  })
  .meta({ id: 'RunCompletedWebhook' });

const matches: Same<z.output<typeof RunCompletedPayloadSchema>, RunCompletedPayload> = true;
void matches;

/** The webhooks the service sends, by event type, for the document's `webhooks` section. */
export const OUTBOUND_WEBHOOKS = {
  'trigger.run.completed': {
    summary: 'A trigger run settled: every started subscriber\'s execution has ended. Signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).',
    schema: RunCompletedPayloadSchema,
  },
} as const;
