// Declared routes through the real kernel: credential and body resolved once, in order, and the after-step's timing.
import pino from 'pino';
import t from 'tap';
import { z } from 'zod';
import { createKernel } from '../../http/kernel.js';
import { createHttpMetrics } from '../../http/metrics.js';
import { buildOperation } from '../../http/openapi/operation.js';
import { createSchemaCollector } from '../../http/openapi/json-schema.js';
import { declareRoutes } from '../../http/route-helpers.js';
import { Router } from '../../http/router.js';
import type { Credential, HttpRequest, JsonReply, Route } from '../../http/types.js';
import { ManualClock } from '../../runtime/clock.js';
import { AppError, notFound } from '../../runtime/errors.js';
import { TokenBuckets } from '../../runtime/rate-limit.js';

interface World {
  credentialCalls: number;
  bodyParses: number;
  afterRuns: string[];
}

function setup() {
  const world: World = { credentialCalls: 0, bodyParses: 0, afterRuns: [] };
  const token: Credential<World, { who: string }> = {
    security: ['apiKey'],
    resolve(request, w) {
      w.credentialCalls += 1;
      if (request.headers.authorization !== 'Bearer good') throw notFound();
      return { who: 'ada' };
    },
  };
  const Body = z.strictObject({ name: z.string() }).transform((body) => {
    world.bodyParses += 1;
    return body;
  });
  const route = declareRoutes(token);
  const routes: Route<World>[] = [
    route({
      method: 'POST',
      path: '/things',
      doc: { summary: 'create', body: Body },
      handler: ({ caller, body }, w) => ({ status: 202, body: { who: caller.who, name: body.name }, after: () => w.afterRuns.push(body.name) }),
    }),
    route({
      method: 'POST',
      path: '/things/:id/touch',
      allowEmptyBody: true,
      doc: { summary: 'touch', body: z.strictObject({ note: z.string().optional() }), query: z.strictObject({ limit: z.coerce.number().int().max(10).optional() }) },
      handler: ({ body, query, params }) => ({ status: 200, body: { body, query, id: params.id } }),
    }),
    route({
      method: 'POST',
      path: '/refused',
      doc: { summary: 'an error reply with an after-step' },
      handler: (_call, w) => ({ status: 409, body: { error: { code: 'CONFLICT', message: 'no' } }, after: () => w.afterRuns.push('refused') }),
    }),
    route({
      method: 'POST',
      path: '/keyed',
      doc: { summary: 'keyed', headers: z.object({ 'Idempotency-Key': z.string() }) },
      handler: ({ idempotencyKey }) => ({ status: 200, body: { idempotencyKey } }),
    }),
    route({
      method: 'POST',
      path: '/broken-after',
      doc: { summary: 'after throws' },
      handler: () => ({ status: 200, body: {}, after: () => { throw new AppError('INTERNAL', 'boom'); } }),
    }),
  ];
  const kernel = createKernel(
    {
      router: new Router<World>(routes),
      services: world,
      logger: pino({ level: 'silent' }),
      metrics: createHttpMetrics({ defaultMetrics: false }),
      ipLimiter: new TokenBuckets({ ratePerSecond: 0, burst: 0 }, new ManualClock(0)),
    },
    1024 * 1024,
  );
  return { world, kernel, routes };
}

function request(method: string, path: string, options: { body?: string; headers?: Record<string, string>; query?: string } = {}): HttpRequest {
  const headers = { authorization: 'Bearer good', 'content-type': 'application/json', ...options.headers };
  return {
    method,
    path,
    query: new URLSearchParams(options.query ?? ''),
    headers,
    headerCounts: Object.fromEntries(Object.keys(headers).map((name) => [name, 1])),
    params: {},
    body: Buffer.from(options.body ?? ''),
    ip: '127.0.0.1',
    requestId: 'test',
    secure: false,
  };
}

const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

t.test('the credential is resolved once and before the body: a bad credential never reaches the parser', async (t) => {
  const { world, kernel } = setup();
  const ok = (await kernel.handle(request('POST', '/things', { body: '{"name":"x"}' }))) as JsonReply;
  t.equal(ok.status, 202);
  t.same(ok.body, { who: 'ada', name: 'x' });
  t.equal(world.credentialCalls, 1, 'one credential resolution');
  t.equal(world.bodyParses, 1, 'one body parse');

  const refused = (await kernel.handle(request('POST', '/things', { body: '{"name": ', headers: { authorization: 'Bearer bad' } }))) as JsonReply;
  t.equal(refused.status, 404, 'the credential\'s answer, not the malformed body\'s 400');
  t.equal(world.credentialCalls, 2);
  t.equal(world.bodyParses, 1, 'the body was not parsed');
});

t.test('body and query come from the declaration: strict, empty body as {} only where declared', async (t) => {
  const { kernel } = setup();
  const touched = (await kernel.handle(request('POST', '/things/abc/touch', { query: 'limit=3' }))) as JsonReply;
  t.same(touched.body, { body: {}, query: { limit: 3 }, id: 'abc' });
  const badQuery = (await kernel.handle(request('POST', '/things/abc/touch', { query: 'limit=11' }))) as JsonReply;
  t.equal(badQuery.status, 400);
  const unknownField = (await kernel.handle(request('POST', '/things', { body: '{"name":"x","extra":1}' }))) as JsonReply;
  t.equal(unknownField.status, 400);
  t.match(JSON.stringify(unknownField.body), /extra/);
  const empty = (await kernel.handle(request('POST', '/things'))) as JsonReply;
  t.equal(empty.status, 400, 'a required body may not be empty');
});

t.test('after runs once, after the reply is in the adapter\'s hands, and never on an error reply', async (t) => {
  const { world, kernel } = setup();
  const reply = (await kernel.handle(request('POST', '/things', { body: '{"name":"first"}' }))) as JsonReply;
  // Here an adapter writes the reply (synchronously, in this continuation): the after-step must not have run yet.
  t.same(world.afterRuns, [], 'not before the reply is written');
  t.notOk('after' in reply, 'the after-step is the kernel\'s, never part of the reply');
  await nextMacrotask();
  t.same(world.afterRuns, ['first'], 'then exactly once');
  await nextMacrotask();
  t.same(world.afterRuns, ['first']);

  const refused = (await kernel.handle(request('POST', '/refused'))) as JsonReply;
  t.equal(refused.status, 409);
  const malformed = (await kernel.handle(request('POST', '/things', { body: '{' }))) as JsonReply;
  t.equal(malformed.status, 400);
  await nextMacrotask();
  t.same(world.afterRuns, ['first'], 'no after-step for an error reply');

  const broken = (await kernel.handle(request('POST', '/broken-after'))) as JsonReply;
  t.equal(broken.status, 200);
  await nextMacrotask();
  t.pass('an after-step that throws is logged, not an unhandled exception');
});

t.test('a declared Idempotency-Key is parsed by the kernel: required, one value, the pattern', async (t) => {
  const { kernel } = setup();
  t.same(((await kernel.handle(request('POST', '/keyed', { headers: { 'idempotency-key': ' k-1 ' } }))) as JsonReply).body, { idempotencyKey: 'k-1' });
  const missing = (await kernel.handle(request('POST', '/keyed'))) as JsonReply;
  t.equal(missing.status, 400);
  t.match(missing.body, { error: { code: 'VALIDATION', details: { issues: [{ path: 'Idempotency-Key', message: 'required' }] } } });
  const listed = (await kernel.handle(request('POST', '/keyed', { headers: { 'idempotency-key': 'a,b' } }))) as JsonReply;
  t.equal(listed.status, 400);
});

t.test('the OpenAPI operation takes its security and body from the same declaration', async (t) => {
  const { routes } = setup();
  const operation = buildOperation(routes[0] as Route<unknown>, createSchemaCollector(), { rateLimited: true }) as Record<string, any>;
  t.same(operation.security, [{ apiKey: [] }], 'the credential\'s scheme, whatever the doc object said');
  t.ok(operation.requestBody.required);
  const touch = buildOperation(routes[1] as Route<unknown>, createSchemaCollector(), { rateLimited: true }) as Record<string, any>;
  t.equal(touch.requestBody.required, false, 'allowEmptyBody publishes an optional body');
});
