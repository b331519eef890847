// Owns the trigger section of a manifest: a discriminated union on `type` (SPEC "Trigger"), cron and time zone checks.
import { Cron } from 'croner';
import * as z from 'zod';
import { RefSchema, nameSchema, uniqueRefs } from './common.schema.js';
import { IntegrationIdSchema } from './integration.schema.js';
import { JsonObjectSchema, JsonValueSchema } from './json-value.schema.js';

export const TRIGGER_LIMITS = Object.freeze({ nameMaxLength: 120, subscribersMaxEntries: 100, endpointSecretMaxLength: 1_024 });

function isCron(pattern: string): boolean {
  try {
    // paused: validation only, never schedules anything.
    new Cron(pattern, { paused: true });
    return true;
  } catch {
    return false;
  }
}

function isIanaTimeZone(zone: string): boolean {
  // Intl knows the IANA database (including "UTC" and "Etc/GMT+1"); the pattern keeps out offset forms such
  // as "+01:00" that newer engines also accept but that are not IANA names.
  if (!/^[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const common = {
  ref: RefSchema,
  domain: RefSchema,
  name: nameSchema(TRIGGER_LIMITS.nameMaxLength),
  /** Agent and flow refs, fired in this order. */
  subscribers: uniqueRefs(RefSchema, 'subscriber').max(TRIGGER_LIMITS.subscribersMaxEntries).default([]),
  active: z.boolean().default(true),
};

export const ApiTriggerSchema = z.strictObject({ ...common, type: z.literal('api') });

export const ScheduleTriggerSchema = z.strictObject({
  ...common,
  type: z.literal('schedule'),
  cron: z.string().trim().min(1, 'must not be empty').max(200).refine(isCron, 'is not a valid cron pattern'),
  timezone: z.string().min(1).max(100).refine(isIanaTimeZone, 'is not an IANA time zone').optional(),
  input: JsonObjectSchema.optional(),
});

export const EventFilterSchema = z.strictObject({
  /** Actor data (`actor.*`), `occurredAt`, or a payload path the integration declares for the event. */
  field: z.string().min(1, 'must not be empty').max(500),
  operator: z.enum(['equals', 'not-equals', '>', '<', 'contains']),
  value: JsonValueSchema,
});

export const EventTriggerSchema = z.strictObject({
  ...common,
  type: z.literal('event'),
  sourceIntegrationId: IntegrationIdSchema,
  /** Connection ref in the same organization. */
  connection: RefSchema,
  eventType: z.string().min(1, 'must not be empty').max(200),
  /** Verifies inbound deliveries; stored sealed, never in clear. */
  endpointSecret: z.string().min(1, 'must not be empty').max(TRIGGER_LIMITS.endpointSecretMaxLength).optional(),
  eventFilter: EventFilterSchema.optional(),
});

export const TriggerSchema = z.discriminatedUnion('type', [ApiTriggerSchema, ScheduleTriggerSchema, EventTriggerSchema]);

export type TriggerManifest = z.infer<typeof TriggerSchema>;
export type EventTriggerManifest = z.infer<typeof EventTriggerSchema>;
export type ScheduleTriggerManifest = z.infer<typeof ScheduleTriggerSchema>;
export type EventFilter = z.infer<typeof EventFilterSchema>;
