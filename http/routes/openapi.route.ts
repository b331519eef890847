// GET /api/v1/openapi.json, generated from the routes' zod schemas (it grows as routes land).
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import type { Route } from '../types.js';

const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'Personal API key sv_…' },
  userToken: { type: 'http', scheme: 'bearer', description: 'Short-lived user token svu_…' },
  cookie: { type: 'apiKey', in: 'cookie', name: 'service_session' },
  partnerKey: { type: 'http', scheme: 'bearer', description: 'Partner key svp_…' },
  lease: { type: 'http', scheme: 'bearer', description: 'Leased token svt_…' },
};

const ErrorEnvelope = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});

function schemaOf(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
}

/** Query parameters from an object schema: one parameter per property. */
function queryParameters(schema: z.ZodType | undefined): Array<Record<string, unknown>> {
  if (!schema) return [];
  const json = schemaOf(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

export function buildOpenApi(routes: Route<Services>[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const params: Array<Record<string, unknown>> = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    params.push(...queryParameters(route.doc.query));
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(route.doc.responses ?? { 200: { description: 'OK' } })) {
      responses[status] = response.schema
        ? { description: response.description, content: { 'application/json': { schema: schemaOf(response.schema) } } }
        : { description: response.description };
    }
    responses.default = { description: 'Error envelope', content: { 'application/json': { schema: schemaOf(ErrorEnvelope) } } };
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      summary: route.doc.summary,
      tags: route.doc.tags,
      ...(params.length ? { parameters: params } : {}),
      ...(route.doc.security ? { security: route.doc.security.map((name) => ({ [name]: [] })) } : {}),
      ...(route.doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.doc.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Switchyard', version: '1', description: 'Agent and flow execution service (see SPEC.md).' },
    servers: [{ url: '/' }],
    components: { securitySchemes: SECURITY_SCHEMES },
    paths,
  };
}

export function openApiRoute(allRoutes: () => Route<Services>[]): Route<Services> {
  let cached: string | null = null;
  return {
    method: 'GET',
    path: '/api/v1/openapi.json',
    doc: { summary: 'This OpenAPI document.', tags: ['operations'] },
    handler() {
      cached ??= JSON.stringify(buildOpenApi(allRoutes()));
      return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: cached };
    },
  };
}
