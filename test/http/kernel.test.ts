// The HTTP kernel on a real uWS server: envelope, body limits, malformed JSON, 405, 429, health.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { seedUser } from '../helpers/fixtures.js';
import { bearer, call } from '../helpers/http.js';

t.test('health, readiness and metrics answer', async (t) => {
  const { url } = await startTestServer(t);
  t.same((await call(`${url}/healthz`)).json, { status: 'ok' });
  const ready = await call(`${url}/readyz`);
  t.equal(ready.status, 200);
  t.equal(ready.json.status, 'ready');
  const metrics = await call(`${url}/metrics`);
  t.match(metrics.text, /switchyard_http_requests_total/);
});

t.test('an unknown path is the uniform 404 envelope; a wrong method is 405 with Allow', async (t) => {
  const { url } = await startTestServer(t);
  const missing = await call(`${url}/api/v1/nope`);
  t.equal(missing.status, 404);
  t.same(missing.json, { error: { code: 'NOT_FOUND', message: 'Not found.' } });
  const wrong = await call(`${url}/healthz`, { method: 'POST' });
  t.equal(wrong.status, 405);
  t.equal(wrong.headers.get('allow'), 'GET');
  t.equal(wrong.json.error.code, 'METHOD_NOT_ALLOWED');
});

t.test('a body over the limit is refused with 413 before the handler runs', async (t) => {
  const { url } = await startTestServer(t, { config: { bodyLimitBytes: 1024 } });
  const big = await call(`${url}/api/v1/console/login`, { method: 'POST', json: { email: 'a@b.c', password: 'x'.repeat(2000) } });
  t.equal(big.status, 413);
  t.equal(big.json.error.code, 'PAYLOAD_TOO_LARGE');
});

t.test('malformed JSON and unknown fields in a strict body are 400 VALIDATION, never 500', async (t) => {
  const { url } = await startTestServer(t);
  const malformed = await call(`${url}/api/v1/console/login`, { method: 'POST', body: '{"email": ', headers: { 'content-type': 'application/json' } });
  t.equal(malformed.status, 400);
  t.equal(malformed.json.error.code, 'VALIDATION');
  const unknown = await call(`${url}/api/v1/console/login`, { method: 'POST', json: { email: 'a@b.c', password: 'p', extra: 1 } });
  t.equal(unknown.status, 400);
  t.equal(unknown.json.error.code, 'VALIDATION');
  t.match(JSON.stringify(unknown.json.error.details), /extra/);
});

t.test('per-key rate limit answers 429 with Retry-After', async (t) => {
  const server = await startTestServer(t, { config: { keyRateLimit: { ratePerSecond: 1, burst: 2 } } });
  const user = await seedUser(server.service.store);
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await call(`${server.url}/api/v1/me`, { headers: bearer(user.apiKey) })).status);
  t.same(statuses, [200, 200, 429]);
  const limited = await call(`${server.url}/api/v1/me`, { headers: bearer(user.apiKey) });
  t.equal(limited.json.error.code, 'RATE_LIMITED');
  t.equal(limited.headers.get('retry-after'), '1');
  server.clock.advance(1000);
  t.equal((await call(`${server.url}/api/v1/me`, { headers: bearer(user.apiKey) })).status, 200, 'the bucket refills as the clock moves');
});

t.test('per-IP rate limit answers 429 with Retry-After, health probes exempt', async (t) => {
  const server = await startTestServer(t, { config: { ipRateLimit: { ratePerSecond: 1, burst: 1 } } });
  t.equal((await call(`${server.url}/api/v1/nope`)).status, 404);
  const limited = await call(`${server.url}/api/v1/nope`);
  t.equal(limited.status, 429);
  t.ok(Number(limited.headers.get('retry-after')) >= 1);
  t.equal((await call(`${server.url}/healthz`)).status, 200);
});

t.test('responses carry a request id', async (t) => {
  const { url } = await startTestServer(t);
  const answer = await call(`${url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
  t.equal(answer.headers.get('x-request-id'), 'abc-123');
});

t.test('the kernel itself refuses an oversized body (413) and a too-deep one (400), whatever adapter delivered it', async (t) => {
  const { service } = await startTestServer(t, { config: { bodyLimitBytes: 1024, jsonMaxDepth: 4 } });
  // A plain request object handed straight to the kernel: no uWS, as a node:http adapter or an embedder would.
  const request = (body: string) => ({
    method: 'POST', path: '/api/v1/console/login', query: new URLSearchParams(), headers: { 'content-type': 'application/json' },
    headerCounts: {}, params: {}, body: Buffer.from(body), ip: '127.0.0.1', requestId: 'kernel-test', secure: false,
  });
  const big = (await service.kernel.handle(request(JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(2000) })))) as { status: number; body: any };
  t.equal(big.status, 413);
  t.match(big.body, { error: { code: 'PAYLOAD_TOO_LARGE', details: { limitBytes: 1024 } } });
  const deep = (await service.kernel.handle(request('{"email":[[[["x"]]]],"password":"p"}'))) as { status: number; body: any };
  t.equal(deep.status, 400, 'five levels past a limit of four');
  t.match(deep.body, { error: { code: 'VALIDATION', message: /limit of 4 levels/, details: { maxDepth: 4 } } });
});
