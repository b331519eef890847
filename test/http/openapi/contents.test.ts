// What the served OpenAPI document says: ids, security, headers, every body, the error codes of docs/errors.md, SSE.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { z } from 'zod';
import { buildOpenApi } from '../../../http/openapi/document.js';
import { TENANT_ROUTE_PATHS } from '../../../http/routes/partner-tenant.route.js';
import type { Route } from '../../../http/types.js';
import { ERROR_STATUS } from '../../../runtime/errors.js';
import { call } from '../../helpers/http.js';
import { startTestServer } from '../../helpers/server.js';

type Operation = { operationId: string; security?: unknown[]; parameters?: Array<{ name: string; in: string; required: boolean }>; responses: Record<string, any> };

async function served(t: Test): Promise<{ document: any; operations: Array<{ method: string; path: string; op: Operation }> }> {
  const server = await startTestServer(t);
  const document = (await call(`${server.url}/api/v1/openapi.json`)).json;
  const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );
  return { document, operations };
}

const op = (ops: Awaited<ReturnType<typeof served>>['operations'], method: string, path: string): Operation => {
  const found = ops.find((o) => o.method === method && o.path === path);
  if (!found) throw new Error(`no ${method} ${path}`);
  return found.op;
};

const headerParam = (operation: Operation, name: string) => operation.parameters?.find((p) => p.in === 'header' && p.name === name);

t.test('every operation has an operationId, unique in the document', async (t) => {
  const { operations } = await served(t);
  t.ok(operations.length >= 70, `${operations.length} operations`);
  const ids = operations.map((o) => o.op.operationId);
  t.notOk(ids.some((id) => typeof id !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(id)), 'every id is a camelCase identifier');
  t.equal(new Set(ids).size, ids.length, 'no id twice');
});

t.test('every operation states its security: public routes say `security: []`', async (t) => {
  const { operations } = await served(t);
  for (const { method, path, op: operation } of operations) t.ok(Array.isArray(operation.security), `${method} ${path}`);
  for (const path of ['/healthz', '/readyz', '/api/v1/console/login', '/api/v1/console/activate', '/api/v1/openapi.json']) {
    const operation = operations.find((o) => o.path === path)!.op;
    t.same(operation.security, [], `${path} is public`);
  }
  t.same(op(operations, 'post', '/api/v1/events/{triggerId}').security, [], 'inbound events are authenticated by signature, not a scheme');
  t.same(op(operations, 'post', '/api/v1/triggers/fire').security, [{ apiKey: [] }]);
});

t.test('every success answer has a body schema (204 and the MCP 202 have no body)', async (t) => {
  const { operations } = await served(t);
  const bodiless = new Set(['mcpPost 202']);
  let checked = 0;
  for (const { method, path, op: operation } of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!/^2/.test(status) || status === '204' || bodiless.has(`${operation.operationId} ${status}`)) continue;
      checked += 1;
      const media = Object.values(response.content ?? {}) as Array<{ schema?: unknown }>;
      t.ok(media.length > 0 && media.every((m) => m.schema), `${method.toUpperCase()} ${path} ${status} has a schema`);
    }
  }
  t.ok(checked >= 65, `${checked} success answers checked`);
});

t.test('every error answer is the one error envelope, whose code enum is docs/errors.md and runtime/errors.ts', async (t) => {
  const { document, operations } = await served(t);
  const envelopeRef = '#/components/schemas/ErrorEnvelope';
  // Readiness answers 503 with its status body; the MCP transport answers 406/415 with JSON-RPC errors (400 may be either).
  const ownBodies = new Set(['getReadiness 503', 'mcpPost 406', 'mcpPost 415']);
  for (const { method, path, op: operation } of operations) {
    t.ok(operation.responses.default, `${method} ${path} has a default error answer`);
    for (const [status, response] of Object.entries(operation.responses)) {
      if (status !== 'default' && Number(status) < 400) continue;
      const schema = JSON.stringify(response.content['application/json'].schema);
      if (ownBodies.has(`${operation.operationId} ${status}`)) t.notOk(schema.includes(envelopeRef), `${operation.operationId} ${status} documents its own body`);
      else t.ok(schema.includes(envelopeRef), `${method} ${path} ${status} uses the envelope`);
    }
  }
  const codes: string[] = document.components.schemas.ErrorEnvelope.properties.error.properties.code.enum;
  const table = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  const documented = [...new Set([...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]))];
  t.ok(documented.length >= 20, `${documented.length} codes in docs/errors.md`);
  t.same([...codes].sort(), [...documented].sort(), 'the enum lists exactly the codes docs/errors.md documents');
  t.same([...codes].sort(), Object.keys(ERROR_STATUS).sort(), 'and exactly the codes of the runtime catalog');
});

t.test('header parameters: Idempotency-Key, Last-Event-ID, X-Service-Subject, Mcp-Session-Id, webhook signatures', async (t) => {
  const { operations } = await served(t);
  t.match(headerParam(op(operations, 'post', '/api/v1/triggers/fire'), 'Idempotency-Key'), { required: false });
  t.match(headerParam(op(operations, 'post', '/api/partner/v1/organizations'), 'Idempotency-Key'), { required: true });
  t.match(headerParam(op(operations, 'get', '/api/v1/agents/sessions/{sessionId}/stream'), 'Last-Event-ID'), { required: false });
  t.match(headerParam(op(operations, 'post', '/api/v1/mcp'), 'Mcp-Session-Id'), { required: false });
  t.match(headerParam(op(operations, 'delete', '/api/v1/mcp'), 'Mcp-Session-Id'), { required: true });
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) t.match(headerParam(op(operations, 'post', '/api/v1/events/{triggerId}'), name), { required: true });
  for (const v1 of TENANT_ROUTE_PATHS) {
    const path = `/api/partner/v1/organizations/{orgId}${v1.slice('/api/v1'.length)}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const tenant = operations.filter((o) => o.path === path);
    t.ok(tenant.length > 0, path);
    for (const { op: operation } of tenant) t.match(headerParam(operation, 'X-Service-Subject'), { required: true }, `${path} names its subject`);
  }
  const tenantFire = op(operations, 'post', '/api/partner/v1/organizations/{orgId}/triggers/fire');
  t.ok(headerParam(tenantFire, 'Idempotency-Key'), 'a tenant route keeps the v1 route\'s headers');
});

t.test('response headers: Retry-After on 429 and 409 in progress, Idempotency-Replayed on replays', async (t) => {
  const { document, operations } = await served(t);
  const fire = op(operations, 'post', '/api/v1/triggers/fire');
  t.ok(fire.responses['429'].headers['Retry-After'], 'rate limited');
  t.ok(fire.responses['409'].headers['Retry-After'], 'IDEMPOTENCY_IN_PROGRESS');
  t.ok(fire.responses['202'].headers['Idempotency-Replayed']);
  t.ok(op(operations, 'post', '/api/partner/v1/organizations').responses['202'].headers['Idempotency-Replayed']);
  t.notOk(op(operations, 'get', '/healthz').responses['429'], 'probes skip the rate limit');
  t.ok(op(operations, 'get', '/api/v1/me').responses['429'], 'every other route may be rate limited');
  t.match(document.components.headers.RetryAfter, { schema: { type: 'integer' } });
});

t.test('the session stream is text/event-stream, its frames typed by SessionEventEnvelope', async (t) => {
  const { document, operations } = await served(t);
  for (const path of ['/api/v1/agents/sessions/{sessionId}/stream', '/api/partner/v1/organizations/{orgId}/agents/sessions/{sessionId}/stream']) {
    const content = op(operations, 'get', path).responses['200'].content;
    t.same(Object.keys(content), ['text/event-stream'], path);
    t.same(content['text/event-stream']['x-itemSchema'], { $ref: '#/components/schemas/SessionEventEnvelope' });
  }
  const events = document.components.schemas.SessionEvent.oneOf ?? document.components.schemas.SessionEvent.anyOf;
  t.equal(events.length, 12, 'one variant per event type of docs/events.md');
  t.same(Object.keys(op(operations, 'post', '/api/v1/mcp').responses['200'].content), ['application/json', 'text/event-stream']);
  t.ok(document.webhooks['trigger.run.completed'].post.requestBody, 'the outbound webhook is described');
});

t.test('the generator refuses two schemas under one name and two routes with one operationId', async (t) => {
  const route = (path: string, schema: z.ZodType, operationId?: string): Route<unknown> => ({
    method: 'GET',
    path,
    doc: { summary: path, operationId, responses: { 200: { description: 'ok', schema } } },
    handler: () => ({ status: 200 }),
  });
  const one = z.object({ a: z.string() }).meta({ id: 'TestClash' });
  const other = z.object({ b: z.number() }).meta({ id: 'TestClash' });
  t.throws(() => buildOpenApi([route('/x', z.object({ v: one })), route('/y', z.object({ v: other }))]), /two different schemas are named "TestClash"/);
  t.throws(() => buildOpenApi([route('/x', z.string(), 'same'), route('/y', z.string(), 'same')]), /operationId same/);
  const document: any = buildOpenApi([route('/x', z.object({ v: one }))]);
  t.same(document.paths['/x'].get.responses['200'].content['application/json'].schema.properties.v, { $ref: '#/components/schemas/TestClash' }, 'named schemas are hoisted');
  t.ok(document.components.schemas.TestClash);
});

t.test('a body two operations declare (a route and its tenant twin) is one component both refer to', async (t) => {
  const body = z.object({ name: z.string() });
  const answer = z.object({ id: z.string(), name: z.string() });
  const route = (path: string, operationId: string): Route<unknown> => ({
    method: 'POST',
    path,
    doc: { summary: path, operationId, body, responses: { 201: { description: 'created', schema: answer }, 400: { description: 'VALIDATION', schema: answer } } },
    handler: () => ({ status: 201 }),
  });
  const document: any = buildOpenApi([route('/x', 'createX'), route('/tenant/x', 'tenantCreateX'), { ...route('/alone', 'alone'), doc: { summary: 'alone', operationId: 'alone', responses: { 200: { description: 'ok', schema: z.object({ v: z.number() }) } } } }]);
  const schemaOf = (path: string, status: string) => document.paths[path].post.responses[status].content['application/json'].schema;
  const bodyOf = (path: string) => document.paths[path].post.requestBody.content['application/json'].schema;
  t.same(schemaOf('/x', '201'), { $ref: '#/components/schemas/CreateX201' }, 'named after the first operation');
  t.same(schemaOf('/tenant/x', '201'), { $ref: '#/components/schemas/CreateX201' }, 'the twin refers to the same component');
  t.same(bodyOf('/tenant/x'), { $ref: '#/components/schemas/CreateXBody' });
  t.equal(document.components.schemas.CreateX201.properties.id.type, 'string');
  t.notOk(schemaOf('/x', '400').$ref, 'error bodies stay inline');
  t.equal(document.paths['/alone'].post.responses['200'].content['application/json'].schema.type, 'object', 'a body one route declares stays inline');
});
