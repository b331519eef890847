// The OpenAPI 3.1 document of a route list, generated from the zod schemas each route declares in its `doc`.
import type { ZodType } from 'zod';
import type { Route } from '../types.js';
import { ErrorEnvelope, headerComponents, SECURITY_SCHEMES } from './components.js';
import { createSchemaCollector } from './json-schema.js';
import { buildOperation, openApiPath } from './operation.js';

export interface OpenApiOptions {
  /** Paths the per-IP rate limit skips (they document no 429). */
  unlimitedPaths?: ReadonlySet<string>;
  version?: string;
  /** Requests the service sends (OpenAPI 3.1 `webhooks`), by event type. */
  webhooks?: Record<string, { summary: string; schema: ZodType }>;
}

/**
 * Request and success body schemas that more than one route declares (a route and its customer-tenant twin). Error
 * bodies stay inline: each shows the envelope where a reader (and the contents test) looks for it.
 */
function sharedBodies(routes: readonly Route<unknown>[]): Set<ZodType> {
  const seen = new Set<ZodType>();
  const shared = new Set<ZodType>();
  for (const { doc } of routes) {
    // One route naming a schema twice (200 and 201 alike) is one use: only other operations make it shared.
    const own = new Set([doc.body, ...Object.entries(doc.responses ?? {}).filter(([status]) => Number(status) < 400).map(([, response]) => response.schema)].filter((s): s is ZodType => s !== undefined));
    for (const schema of own) (seen.has(schema) ? shared : seen).add(schema);
  }
  return shared;
}

export function buildOpenApi(routes: readonly Route<unknown>[], options: OpenApiOptions = {}): Record<string, unknown> {
  const schemas = createSchemaCollector(sharedBodies(routes));
  schemas.toSchema(ErrorEnvelope, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Map<string, string>();
  for (const route of routes) {
    const operation = buildOperation(route, schemas, { rateLimited: !(options.unlimitedPaths?.has(route.path) ?? false) });
    const id = operation.operationId as string;
    const where = `${route.method} ${route.path}`;
    if (operationIds.has(id)) throw new Error(`OpenAPI: operationId ${id} of ${where} is already used by ${operationIds.get(id)}`);
    operationIds.set(id, where);
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation;
  }
  const webhooks = Object.fromEntries(
    Object.entries(options.webhooks ?? {}).map(([type, hook]) => [
      type,
      {
        post: {
          operationId: `webhook${type.split(/[^A-Za-z0-9]+/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}`,
          summary: hook.summary,
          // Authenticated by its Standard Webhooks signature, which OpenAPI has no security scheme for.
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema: schemas.toSchema(hook.schema, 'output') } } },
          responses: { '2XX': { description: 'received; any other answer is retried with backoff' } },
        },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard',
      version: options.version ?? '1',
      description: 'Agent and flow execution service (see SPEC.md). Errors: docs/errors.md; session events: docs/events.md.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    paths,
    ...(Object.keys(webhooks).length ? { webhooks } : {}),
    components: { schemas: schemas.components(), headers: headerComponents(), securitySchemes: SECURITY_SCHEMES },
  };
}
