// Checks edited tool arguments in the browser against the tool's JSON Schema input, before they are sent.
import { Validator, type Schema, type SchemaDraft } from '@cfworker/json-schema';

export type ArgsCheck = { ok: true; value: Record<string, unknown> } | { ok: false; problems: string[] };

/** The draft a schema names in `$schema`; 2020-12 (what tool schemas default to here) otherwise. */
function draftOf(schema: Schema): SchemaDraft {
  const named = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (named.includes('draft-04')) return '4';
  if (named.includes('draft-07') || named.includes('draft-06')) return '7';
  if (named.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/**
 * Parses `text` as a JSON object and validates it. @cfworker/json-schema interprets the schema (ajv compiles it
 * with `new Function`, which the console's CSP `script-src 'self'` forbids). The server checks again: this
 * only lets the approver see a problem before sending.
 */
export function checkArgs(text: string, schema: Record<string, unknown> | null): ArgsCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`Not valid JSON: ${(error as Error).message}`] };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, problems: ['The arguments must be a JSON object.'] };
  if (schema === null) return { ok: true, value: value as Record<string, unknown> };
  const result = new Validator(schema as Schema, draftOf(schema as Schema), false).validate(value);
  if (result.valid) return { ok: true, value: value as Record<string, unknown> };
  // The leaf errors say what is wrong; the summary units ("items did not match") repeat them.
  const leaves = result.errors.filter((unit) => !/^(properties|allOf|anyOf|oneOf|items|\$ref|false)$/.test(unit.keyword));
  const shown = (leaves.length > 0 ? leaves : result.errors).map((unit) => `${unit.instanceLocation.replace(/^#/, '') || '(root)'}: ${unit.error}`);
  return { ok: false, problems: [...new Set(shown)] };
}
