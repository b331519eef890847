// Owns the POST /triggers body: a strict discriminated union on `type` (SPEC "Trigger"), reusing the manifest's checks.
import { z } from 'zod';
import { nameSchema } from '../manifest/common.schema.js';
import { IntegrationIdSchema } from '../manifest/integration.schema.js';
import { JsonObjectSchema } from '../manifest/json-value.schema.js';
import { EventFilterSchema, ScheduleTriggerSchema, TRIGGER_LIMITS } from '../manifest/trigger.schema.js';
import { isSigningSecret } from '../webhooks/standard-webhooks.js';

const subscriberIds = z
  .array(z.uuid())
  .max(TRIGGER_LIMITS.subscribersMaxEntries)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an automation');

/**
 * Fields every type shares. `subscribers` (agent and flow ids of the trigger's domain, fired in this order) and
 * `active` (default true) are ours: the spec lists no subscriber field, and a trigger nobody subscribes to is inert.
 */
const common = {
  domainId: z.uuid(),
  name: nameSchema(TRIGGER_LIMITS.nameMaxLength),
  subscribers: subscriberIds.optional(),
  active: z.boolean().optional(),
};

export const ApiTriggerBody = z.strictObject({ type: z.literal('api'), ...common });

export const ScheduleTriggerBody = z.strictObject({
  type: z.literal('schedule'),
  ...common,
  // The manifest's own cron (croner) and IANA time-zone checks.
  cron: ScheduleTriggerSchema.shape.cron,
  timezone: ScheduleTriggerSchema.shape.timezone,
  input: JsonObjectSchema.optional(),
});

export const EventTriggerBody = z.strictObject({
  type: z.literal('event'),
  ...common,
  sourceIntegrationId: IntegrationIdSchema,
  connectionId: z.uuid(),
  eventType: z.string().min(1).max(200),
  /** Omitted: the service mints one and returns it once in the 201. */
  endpointSecret: z
    .string()
    .max(TRIGGER_LIMITS.endpointSecretMaxLength)
    .refine(isSigningSecret, 'must be a Standard Webhooks secret: "whsec_" and the base64 of 24 to 64 bytes')
    .optional(),
  eventFilter: EventFilterSchema.optional(),
});

export const CreateTriggerBody = z.discriminatedUnion('type', [ScheduleTriggerBody, ApiTriggerBody, EventTriggerBody]);

export type CreateTriggerInput = z.infer<typeof CreateTriggerBody>;
export type ScheduleTriggerInput = z.infer<typeof ScheduleTriggerBody>;
export type EventTriggerInput = z.infer<typeof EventTriggerBody>;
