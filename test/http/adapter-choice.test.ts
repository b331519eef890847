// Which HTTP adapter runs: auto takes the native uWS binary or node:http, never uWS's broken JS fallback; logged and in /metrics.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { chooseAdapter } from '../../http/http-server.js';
import { createService } from '../../http/service.js';
import { configFromEnv } from '../../runtime/config.js';
import { startTestServer } from '../helpers/server.js';
import { call } from '../helpers/http.js';

// The trufflesuite republish ships binaries for ABIs 93/108/115 (Node 16/18/20); Node 22 is 127, Node 24 is 137.
const nativeHere = ['93', '108', '115'].includes(process.versions.modules);

t.test('auto: uWS where its native binary loads, node:http otherwise; UWS_USE_FALLBACK counts as no binary', async (t) => {
  const auto = chooseAdapter('auto', {});
  t.equal(auto.adapter, nativeHere ? 'uws' : 'node', `Node ${process.version}: ${auto.reason}`);
  if (!nativeHere) t.match(auto.reason, /no uWebSockets\.js binary for Node/);
  const fallback = chooseAdapter('auto', { UWS_USE_FALLBACK: '1' });
  t.equal(fallback.adapter, 'node');
  t.match(fallback.reason, /UWS_USE_FALLBACK/);
  t.equal(chooseAdapter('node', {}).adapter, 'node');
});

t.test('an explicit uws that cannot load is a start-up error naming the cause, before the database is opened', async (t) => {
  t.throws(() => chooseAdapter('uws', { UWS_USE_FALLBACK: 'true' }), /SWITCHYARD_HTTP_ADAPTER=uws but uWebSockets\.js cannot load: UWS_USE_FALLBACK/);
  const dir = mkdtempSync(join(tmpdir(), 'adapter-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'never.db');
  await t.rejects(
    createService({ dbPath, env: { UWS_USE_FALLBACK: '1' }, config: { logLevel: 'silent', httpAdapter: 'uws' } }),
    /cannot load/,
  );
  t.notOk(existsSync(dbPath), 'no database file was created');
});

t.test('SWITCHYARD_HTTP_ADAPTER is read from the environment and checked', async (t) => {
  t.equal(configFromEnv({}).httpAdapter, 'auto');
  t.equal(configFromEnv({ SWITCHYARD_HTTP_ADAPTER: 'node' }).httpAdapter, 'node');
  t.equal(configFromEnv({ SWITCHYARD_HTTP_ADAPTER: 'uws' }).httpAdapter, 'uws');
  t.throws(() => configFromEnv({ SWITCHYARD_HTTP_ADAPTER: 'express' }), /SWITCHYARD_HTTP_ADAPTER must be "auto", "uws" or "node"/);
});

for (const adapter of nativeHere ? (['node', 'uws'] as const) : (['node'] as const)) {
  t.test(`the running adapter (${adapter}) is in the listening log line and in /metrics`, async (t) => {
    const server = await startTestServer(t, { config: { httpAdapter: adapter } });
    t.equal(server.service.adapter, adapter);
    const listening = server.logs.map((line) => JSON.parse(line)).find((line) => line.msg === 'listening');
    t.match(listening, { adapter, adapterReason: `SWITCHYARD_HTTP_ADAPTER=${adapter}`, node: process.version });
    const metrics = await call(`${server.url}/metrics`);
    t.match(metrics.text, new RegExp(`switchyard_http_adapter_info\\{adapter="${adapter}"\\} 1`));
  });
}
