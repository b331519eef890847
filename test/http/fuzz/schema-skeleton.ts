// A plausible body for a route from its OpenAPI (JSON Schema) body: required fields, some optional ones, known ids.
import fc from 'fast-check';
import { newId } from '../../../runtime/ids.js';

type Schema = Record<string, any>;

/**
 * Values meant to pass the schema, so a poisoned field deep inside reaches what runs after validation. Properties
 * named like an id the world knows (`triggerId`, `domainId`…) get that id; formats and bounds get a minimal valid value.
 */
export function skeleton(schema: Schema | undefined, ids: Record<string, string[]>, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 6) return fc.constant({});
  if (name in ids && ids[name]!.length > 0) return fc.constantFrom(...ids[name]!);
  const options = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(options) && options.length > 0) return fc.oneof(...options.map((option: Schema) => skeleton(option, ids, name, depth + 1)));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'object': {
      const required = new Set<string>(schema.required ?? []);
      const entries = Object.entries<Schema>(schema.properties ?? {}).map(([key, property]) => {
        const value = skeleton(property, ids, key, depth + 1);
        return required.has(key) ? value.map((v) => [key, v] as const) : fc.option(value.map((v) => [key, v] as const), { nil: undefined });
      });
      return fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs.filter((pair) => pair !== undefined)));
    }
    case 'array':
      return schema.minItems > 0 ? skeleton(schema.items, ids, name, depth + 1).map((item) => [item]) : fc.constant([]);
    case 'string':
      if (schema.format === 'uuid') return fc.constant(newId());
      if (schema.format === 'date-time') return fc.constant('2026-11-23T12:00:00.000Z');
      if (schema.format === 'email') return fc.constant('fuzz@example.test');
      // Varied, so idempotency keys and names rarely collide across runs.
      return fc.nat().map((n) => `f${n.toString(36)}`.padEnd(schema.minLength ?? 1, 'x').slice(0, schema.maxLength ?? 64));
    case 'integer':
    case 'number':
      return fc.constant(schema.minimum ?? 1);
    case 'boolean':
      return fc.boolean();
    default:
      return fc.constant({});
  }
}

/** Every object-key path in a value (`["eventFilter","value"]`), shallow first, up to four levels. */
export function keyPaths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || prefix.length >= 4) return [];
  return Object.entries(value).flatMap(([key, inner]) => [[...prefix, key], ...keyPaths(inner, [...prefix, key])]);
}
