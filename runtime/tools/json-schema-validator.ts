// Owns checking tool arguments against a tool's JSON Schema (ajv), with issues that never echo argument values.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';

// ajv-formats is CommonJS (`module.exports = plugin`); under NodeNext its default import is typed as the module.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

/** One broken rule: a JSON Pointer into the arguments (`''` = the whole object) and the schema keyword. */
export interface SchemaIssue {
  readonly path: string;
  readonly rule: string;
  readonly message: string;
}

export type SchemaCheck = { readonly ok: true } | { readonly ok: false; readonly issues: readonly SchemaIssue[] };

export interface JsonSchemaValidator {
  /** Validates `value` against `schema`; a schema that does not compile yields one `schema` issue. */
  validate(schema: object, value: unknown): SchemaCheck;
  /** Checks that `schema` compiles (manifest loading); the issues name what is wrong with the schema. */
  checkSchema(schema: object): SchemaCheck;
}

export interface JsonSchemaValidatorOptions {
  /** Issues reported per validation (the rest are dropped): enough to fix a call, bounded for the model. */
  readonly maxIssues?: number;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;
const DRAFT_2019 = /^https:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/;

// strict:false accepts vendor keywords (x-*) and unknown formats that manifests and MCP tools carry;
// addUsedSchema:false keeps two tools with the same `$id` from colliding in one ajv instance;
// logger:false keeps ajv's warnings (which quote schema text) off stdout.
const AJV_OPTIONS: Options = { strict: false, allErrors: true, addUsedSchema: false, logger: false };

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Ajv messages describe the rule, never the offending value; enum/const add the schema's allowed values. */
function issueOf(error: ErrorObject): SchemaIssue {
  const params = error.params as Record<string, unknown>;
  let path = error.instancePath;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') path += `/${escapePointer(params.missingProperty)}`;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    path += `/${escapePointer(params.additionalProperty)}`;
  }
  let message = error.message ?? `must satisfy "${error.keyword}"`;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) message += `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (error.keyword === 'const') message += `: ${JSON.stringify(params.allowedValue)}`;
  return { path, rule: error.keyword, message };
}

/** `"/tier": must be equal to one of the allowed values (enum)` lines, for a model or an error message. */
export function formatIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((i) => `${i.path === '' ? '(root)' : i.path}: ${i.message} (${i.rule})`).join('; ');
}

export function createJsonSchemaValidator(options: JsonSchemaValidatorOptions = {}): JsonSchemaValidator {
  const maxIssues = options.maxIssues ?? 20;
  const instances = new Map<string, Ajv>();
  const compiled = new WeakMap<object, ValidateFunction | SchemaIssue>();

  function ajvFor(schema: object): Ajv {
    const declared = (schema as { $schema?: unknown }).$schema;
    // Manifests and zod's toJSONSchema speak 2020-12, the default; older declared drafts get their own dialect.
    const draft = typeof declared === 'string' && DRAFT_07.test(declared) ? '07' : typeof declared === 'string' && DRAFT_2019.test(declared) ? '2019' : '2020';
    let ajv = instances.get(draft);
    if (ajv === undefined) {
      ajv = draft === '07' ? new Ajv(AJV_OPTIONS) : draft === '2019' ? new Ajv2019(AJV_OPTIONS) : new Ajv2020(AJV_OPTIONS);
      addFormats(ajv);
      instances.set(draft, ajv);
    }
    return ajv;
  }

  function compile(schema: object): ValidateFunction | SchemaIssue {
    const cached = compiled.get(schema);
    if (cached !== undefined) return cached;
    let result: ValidateFunction | SchemaIssue;
    try {
      result = ajvFor(schema).compile(schema);
    } catch (err) {
      result = { path: '', rule: 'schema', message: `the tool's input schema is invalid: ${(err as Error).message}` };
    }
    compiled.set(schema, result);
    return result;
  }

  return {
    validate(schema, value) {
      const validate = compile(schema);
      if (typeof validate !== 'function') return { ok: false, issues: [validate] };
      if (validate(value)) return { ok: true };
      return { ok: false, issues: (validate.errors ?? []).slice(0, maxIssues).map(issueOf) };
    },
    checkSchema(schema) {
      const validate = compile(schema);
      return typeof validate === 'function' ? { ok: true } : { ok: false, issues: [validate] };
    },
  };
}
