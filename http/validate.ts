// Body parsing and zod validation that end in the spec's 400 VALIDATION envelope, never a 500.
import { z, type ZodType } from 'zod';
import { parseBoundedJson } from '../runtime/bounded-json.js';
import { DEFAULT_CONFIG } from '../runtime/config.js';
import { notFound, validation } from '../runtime/errors.js';
import { isUuid } from '../runtime/ids.js';
import type { HttpRequest } from './types.js';

/**
 * Parses the JSON body (the one place request bodies are parsed); empty body counts as `{}` only when `allowEmpty`.
 * Nesting past the configured depth is a 400 before JSON.parse: free-form fields (`input`, `eventFilter.value`) would
 * pass their schema and overflow the stack later, in JSON.stringify.
 */
export function readJson(request: HttpRequest, options: { allowEmpty?: boolean } = {}): unknown {
  if (request.body.length === 0) {
    if (options.allowEmpty) return {};
    throw validation('A JSON request body is required.');
  }
  const type = request.headers['content-type'];
  if (type !== undefined && !/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw validation('Content-Type must be application/json.');
  }
  return parseBoundedJson(request.body.toString('utf8'), request.jsonMaxDepth ?? DEFAULT_CONFIG.jsonMaxDepth);
}

/** Validates `value` against `schema`; issues are reported by path without echoing submitted values. */
export function parseWith<T extends ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validation('The request is not valid.', { issues: describeIssues(result.error) });
}

export function describeIssues(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join('.') : '(body)',
    // zod messages name types and bounds, never the value; unknown keys list only key names.
    message: issue.message,
  }));
}

/** A path id that is not a UUID is an unknown id: the same uniform 404 as any other unknown id. */
export function uuidParam(request: HttpRequest, name: string): string {
  const value = request.params[name] ?? '';
  if (!isUuid(value)) throw notFound();
  return value.toLowerCase();
}
