// One route -> one OpenAPI Operation Object: operationId, parameters, security, request body and responses.
import type { ZodObject } from 'zod';
import { isDeclaredRoute, type ResponseDoc, type Route } from '../types.js';
import { headerComponentName, type ResponseHeaderName } from './components.js';
import type { JsonSchema, SchemaCollector } from './json-schema.js';

const ERROR_REF = { $ref: '#/components/schemas/ErrorEnvelope' };
const RATE_LIMITED = { description: 'RATE_LIMITED: the per-IP or per-key token bucket is empty; retry after Retry-After seconds.', headers: ['Retry-After'] } satisfies ResponseDoc;
const FAILURE = { description: 'INTERNAL (500) or SERVICE_UNAVAILABLE (503: shutting down or not ready)' } satisfies ResponseDoc;

/** `/api/v1/agents/:automationId/sessions` -> `/api/v1/agents/{automationId}/sessions`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `POST /api/v1/agents/sessions/:sessionId/messages` -> `postAgentsSessionsBySessionIdMessages` (stable, unique per route). */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/(v1|partner\/v1)\//, (_all, base: string) => (base === 'v1' ? '/' : '/partner/'))
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By${capitalize(segment.slice(1))}` : segment.split(/[^A-Za-z0-9]+/).map(capitalize).join('')));
  return method.toLowerCase() + words.join('');
}

function objectParameters(schemas: SchemaCollector, schema: ZodObject | undefined, where: 'query' | 'header'): JsonSchema[] {
  if (schema === undefined) return [];
  const json = schemas.toSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return { name, in: where, required: json.required?.includes(name) ?? false, ...(description ? { description } : {}), schema: propertySchema };
  });
}

/** `getMe` + `200` -> `GetMe200`: the component name of a body shared by several operations. */
const sharedName = (operationId: string, role: string): string => `${capitalize(operationId)}${role}`;

function content(schemas: SchemaCollector, doc: ResponseDoc, isError: boolean, name: string): JsonSchema | undefined {
  const types = doc.contentType === undefined ? ['application/json'] : [doc.contentType].flat();
  if (!isError && doc.schema === undefined && types.includes('application/json')) return undefined;
  return Object.fromEntries(
    types.map((type) => {
      if (type === 'application/json') {
        if (!doc.schema) return [type, { schema: ERROR_REF }];
        return [type, { schema: isError ? schemas.toSchema(doc.schema, 'output') : schemas.toSharedSchema(doc.schema, 'output', name) }];
      }
      // OpenAPI 3.1 cannot type the items of a stream; `x-itemSchema` anticipates 3.2's itemSchema for tools that read it.
      if (type === 'text/event-stream') return [type, { schema: { type: 'string' }, ...(doc.schema ? { 'x-itemSchema': schemas.toSchema(doc.schema, 'output') } : {}) }];
      return [type, { schema: doc.schema ? schemas.toSchema(doc.schema, 'output') : { type: 'string', contentMediaType: type } }];
    }),
  );
}

function responseObject(schemas: SchemaCollector, status: string, doc: ResponseDoc, name: string): JsonSchema {
  const isError = Number(status) >= 400 || status === 'default';
  const names: ResponseHeaderName[] = [...(doc.headers ?? [])];
  // The kernel stamps every reply but a stream with the request id.
  if (![doc.contentType].flat().includes('text/event-stream')) names.push('X-Request-Id');
  const headers = Object.fromEntries([...new Set(names)].map((name) => [name, { $ref: `#/components/headers/${headerComponentName(name)}` }]));
  const body = content(schemas, doc, isError, name);
  return { description: doc.description, ...(Object.keys(headers).length ? { headers } : {}), ...(body ? { content: body } : {}) };
}

export interface OperationOptions {
  /** Routes exempt from the per-IP limit (health probes) have no 429 answer. */
  rateLimited: boolean;
}

export function buildOperation(route: Route<unknown>, schemas: SchemaCollector, options: OperationOptions): JsonSchema {
  const { doc } = route;
  const parameters: JsonSchema[] = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  parameters.push(...objectParameters(schemas, doc.query as ZodObject | undefined, 'query'), ...objectParameters(schemas, doc.headers, 'header'));
  const declared: Record<string, ResponseDoc> = { ...doc.responses };
  if (options.rateLimited) declared[429] ??= RATE_LIMITED;
  // Shared bodies are named after the operation that shares them (the /api/v1 route; its tenant twin comes later).
  const operationId = doc.operationId ?? derivedOperationId(route.method, route.path);
  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(declared)) responses[status] = responseObject(schemas, status, response, sharedName(operationId, status));
  responses.default = responseObject(schemas, 'default', FAILURE, sharedName(operationId, 'Default'));
  return {
    operationId,
    summary: doc.summary,
    ...(doc.tags ? { tags: doc.tags } : {}),
    ...(parameters.length ? { parameters } : {}),
    // An empty list says "public" explicitly; a missing one would inherit a document-level requirement.
    // A declared route publishes its credential's schemes: the ones the kernel enforces (http/credentials.ts).
    security: ((isDeclaredRoute(route) ? route.credential.security : doc.security) ?? []).map((name) => ({ [name]: [] })),
    ...(doc.body ? { requestBody: { required: doc.bodyOptional !== true, content: { 'application/json': { schema: schemas.toSharedSchema(doc.body, 'input', sharedName(operationId, 'Body')) } } } } : {}),
    responses,
  };
}
