// Owns the PATCH /triggers/:triggerId body: strict, every field optional but at least one; type fit is checked later.
import { z } from 'zod';
import { nameSchema } from '../manifest/common.schema.js';
import { JsonObjectSchema } from '../manifest/json-value.schema.js';
import { EventFilterSchema, ScheduleTriggerSchema, TRIGGER_LIMITS } from '../manifest/trigger.schema.js';

export const UpdateTriggerBody = z
  .strictObject({
    name: nameSchema(TRIGGER_LIMITS.nameMaxLength).optional(),
    /** Schedule triggers only. */
    cron: ScheduleTriggerSchema.shape.cron.optional(),
    /** Schedule triggers only; null returns to UTC. */
    timezone: ScheduleTriggerSchema.shape.timezone.unwrap().nullable().optional(),
    /** Schedule triggers only: the input every tick fires with (replaces the old one). */
    input: JsonObjectSchema.optional(),
    /** Event triggers only; null removes the filter (every event of the type fires). */
    eventFilter: EventFilterSchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'name at least one field to change');

export type UpdateTriggerInput = z.infer<typeof UpdateTriggerBody>;

/** Which trigger types each field applies to (a field for another type is a 400 naming it). */
export const FIELD_TYPES: Readonly<Record<Exclude<keyof UpdateTriggerInput, 'name'>, 'schedule' | 'event'>> = {
  cron: 'schedule',
  timezone: 'schedule',
  input: 'schedule',
  eventFilter: 'event',
};
