// Owns the zod schemas for free-form JSON values and JSON Schema documents embedded in manifests.
import * as z from 'zod';

/** Any JSON-encodable value (templates, trigger inputs, filter values). */
export const JsonValueSchema = z.json();
export type JsonValue = z.infer<typeof JsonValueSchema>;

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
