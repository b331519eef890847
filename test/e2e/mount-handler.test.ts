// Embedding without a port of its own: service.handler / nodeHandler() mounted in a host node:http server.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createService, ManualClock, type Service } from '../../index.js';
import { bearer, call } from '../helpers/http.js';

const manifest = JSON.parse(readFileSync(new URL('../../examples/workspace.json', import.meta.url), 'utf8'));

interface Tap {
  teardown(fn: () => unknown): void;
}

async function serve(t: Tap, listener: http.RequestListener): Promise<string> {
  const host = http.createServer(listener);
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (host.closeAllConnections(), host.close(() => resolve()))));
  return `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
}

async function embedded(t: Tap): Promise<{ service: Service; refs: Record<string, string> }> {
  const service = await createService({ dbPath: ':memory:', clock: new ManualClock(Date.UTC(2026, 10, 22)), config: { logLevel: 'silent', bodyLimitBytes: 2048 } });
  t.teardown(() => service.close());
  const { refs } = await service.applyManifest(manifest);
  return { service, refs };
}

t.test('http.createServer(service.handler) serves the whole API on the host port; the service opens none', async (t) => {
  const { service, refs } = await embedded(t);
  const base = await serve(t, service.handler);
  const me = await call(`${base}/api/v1/me`, { headers: bearer(refs['ada-key']) });
  t.equal(me.status, 200);
  t.equal(me.json.userId, refs.ada);
  const bad = await call(`${base}/api/v1/console/login`, { method: 'POST', json: { email: 'ada@acme.test', password: 'wrong' } });
  t.equal(bad.status, 401, 'a JSON body is read and validated through the handler');
  t.equal(bad.json.error.code, 'UNAUTHORIZED');
  const big = await call(`${base}/api/v1/console/login`, { method: 'POST', json: { email: 'a@b.c', password: 'x'.repeat(4000) } });
  t.equal(big.status, 413, 'body limits hold behind the handler too');
  const metrics = await call(`${base}/metrics`);
  t.match(metrics.text, /switchyard_http_adapter_info\{adapter="node"\} 1/);
  t.notMatch(metrics.text, /adapter="uws"/, 'listen() was never called, so no uWS server runs');
});

t.test('a host app with its own routes gives the service a prefix (nodeHandler basePath, or stripping it itself as Express does)', async (t) => {
  const { service, refs } = await embedded(t);
  const mounted = service.nodeHandler({ basePath: '/switchyard' });
  const viaBasePath = await serve(t, (req, res) => {
    if (req.url === '/' || req.url === '/healthz') return res.end(`host:${req.url}`);
    if (req.url?.startsWith('/switchyard')) return mounted(req, res);
    res.statusCode = 404;
    res.end('host 404');
  });
  t.equal((await call(`${viaBasePath}/healthz`)).text, 'host:/healthz', 'the host keeps its own routes');
  t.same((await call(`${viaBasePath}/switchyard/healthz`)).json, { status: 'ok' });
  const me = await call(`${viaBasePath}/switchyard/api/v1/me?x=1`, { headers: bearer(refs['bob-key']) });
  t.equal(me.json.userId, refs.bob, 'the prefix is stripped before routing; the query string survives');
  t.equal((await call(`${viaBasePath}/switchyard-other/healthz`)).status, 404, 'a path that only starts with the prefix text is not ours');

  // Express's app.use('/sy', handler) rewrites req.url without the mount path; do the same by hand.
  const viaRewrite = await serve(t, (req, res) => {
    if (!req.url?.startsWith('/sy/')) return res.end('host');
    req.url = req.url.slice('/sy'.length);
    service.handler(req, res);
  });
  t.equal((await call(`${viaRewrite}/sy/api/v1/me`, { headers: bearer(refs['ada-key']) })).json.userId, refs.ada);
});

t.test('after close() a mounted handler answers 503 SERVICE_UNAVAILABLE with Retry-After, never touching the closed database', async (t) => {
  const { service } = await embedded(t);
  const base = await serve(t, service.handler);
  t.equal((await call(`${base}/readyz`)).status, 200);
  await service.close();
  const after = await call(`${base}/readyz`);
  t.equal(after.status, 503);
  t.equal(after.json.error.code, 'SERVICE_UNAVAILABLE');
  t.equal(after.headers.get('retry-after'), '1');
});
