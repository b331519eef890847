// zod -> OpenAPI 3.1 Schema Objects: named definitions are hoisted into components/schemas and every $ref rewritten.
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/** Formats that say what zod's generated regular expressions say, in a word every tool understands. */
const FORMATS_WITHOUT_PATTERN = new Set(['date-time', 'uuid', 'email']);

const COMPONENTS = '#/components/schemas/';

export interface SchemaCollector {
  /** The Schema Object for `schema`; schemas with a `.meta({ id })` become `$ref`s into components/schemas. */
  toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema;
  /**
   * Like toSchema, but an unnamed schema that `shared` says several operations use (a route and its customer-tenant
   * twin) is hoisted once into components/schemas under `name` and answered as a `$ref`: clients generate one type.
   */
  toSharedSchema(schema: z.ZodType, io: 'input' | 'output', name: string): JsonSchema;
  /** Every named definition met so far, sorted by name (the document's components/schemas). */
  components(): Record<string, JsonSchema>;
}

/**
 * zod emits one standalone JSON Schema per call, with named (`.meta({ id })`) and recursive schemas under its own
 * `$defs` and `$ref: "#/$defs/Name"`. Inside an OpenAPI document that pointer resolves against the document root,
 * where no `$defs` exists: tools stop on it. So each call's `$defs` moves to components/schemas, its refs follow,
 * and two different definitions under one name are refused instead of one silently replacing the other.
 */
export function createSchemaCollector(shared: ReadonlySet<z.ZodType> = new Set()): SchemaCollector {
  const named = new Map<string, { json: string; schema: JsonSchema }>();
  /** The component name each shared schema got at its first use, per direction. */
  const sharedNames = new Map<z.ZodType, Partial<Record<'input' | 'output', string>>>();

  function hoist(name: string, schema: JsonSchema): void {
    const json = JSON.stringify(schema);
    const existing = named.get(name);
    if (existing !== undefined && existing.json !== json) {
      throw new Error(`OpenAPI: two different schemas are named "${name}" (an input/output difference needs two ids)`);
    }
    named.set(name, { json, schema });
  }

  function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
      const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', override: io === 'output' ? openResponses : tidy }) as JsonSchema;
      const rewritten = rewriteRefs(generated) as JsonSchema;
      const { $schema: _dialect, $defs, ...root } = rewritten;
      for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) hoist(name, definition);
      // A named root (`.meta({ id })` on the schema itself) comes back as its definition plus a root `$ref`.
      return root;
  }

  return {
    toSchema,
    toSharedSchema(schema, io, name) {
      const root = toSchema(schema, io);
      if (!shared.has(schema) || typeof root.$ref === 'string') return root;
      const names = sharedNames.get(schema) ?? {};
      names[io] ??= name;
      sharedNames.set(schema, names);
      hoist(names[io], root);
      return { $ref: `${COMPONENTS}${names[io]}` };
    },
    components() {
      return Object.fromEntries([...named.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, { schema }]) => [name, schema]));
    },
  };
}

type OverrideContext = { zodSchema: unknown; jsonSchema: Record<string, unknown> };

/** Drops the long regular expressions zod writes beside a standard `format`. */
function tidy({ jsonSchema }: OverrideContext): void {
  if (typeof jsonSchema.format === 'string' && FORMATS_WITHOUT_PATTERN.has(jsonSchema.format)) delete jsonSchema.pattern;
}

/**
 * Response objects stay open: zod's output mode closes every non-strict object (`additionalProperties: false`),
 * which would make a client that validates answers break on the first field the service adds.
 */
function openResponses(context: OverrideContext): void {
  tidy(context);
  const def = (context.zodSchema as { _zod?: { def?: { type?: string; catchall?: unknown } } })._zod?.def;
  if (def?.type === 'object' && def.catchall === undefined && context.jsonSchema.additionalProperties === false) delete context.jsonSchema.additionalProperties;
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, key === '$ref' && typeof inner === 'string' ? inner.replace(/^#\/\$defs\//, COMPONENTS) : rewriteRefs(inner)]),
  );
}
