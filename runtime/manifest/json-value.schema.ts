// Owns the zod schemas for free-form JSON values and JSON Schema documents embedded in manifests.
import * as z from 'zod';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Any JSON value (templates, trigger inputs, filter values). Spelled out instead of `z.json()` so the published
 * JSON Schema gets one named, self-referencing `JsonValue` definition.
 */
export const JsonValueSchema: z.ZodType<JsonValue> = z
  .union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(z.lazy(() => JsonValueSchema)),
    z.record(z.string(), z.lazy(() => JsonValueSchema)),
  ])
  .meta({ id: 'JsonValue' });

/** A JSON object (string keys, JSON values). */
export const JsonObjectSchema = z.record(z.string(), JsonValueSchema);
export type JsonObject = z.infer<typeof JsonObjectSchema>;

/**
 * A JSON Schema describing an object. Only the outer shape is checked here: JSON Schema has many
 * keywords, so the document is passed through unchanged (loose) and compiled where it is used.
 */
export const ObjectJsonSchemaSchema = z.looseObject({
  type: z.literal('object'),
  properties: z.record(z.string(), JsonObjectSchema).optional(),
  required: z.array(z.string().min(1)).optional(),
});
export type ObjectJsonSchema = z.infer<typeof ObjectJsonSchemaSchema>;
