// The embedding API: createService on ':memory:' with an injected clock, manifest applied, kernel served without a socket.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { createService, ManualClock } from '../../index.js';
import type { HttpRequest } from '../../http/types.js';
import { testHttpAdapter } from '../helpers/server.js';

const manifest = JSON.parse(readFileSync(new URL('../../examples/workspace.json', import.meta.url), 'utf8'));

function plainRequest(path: string, headers: Record<string, string> = {}): HttpRequest {
  return { method: 'GET', path, query: new URLSearchParams(), headers, headerCounts: {}, params: {}, body: Buffer.alloc(0), ip: '127.0.0.1', requestId: 'embed-1', secure: false };
}

t.test('an app embeds the service in memory and calls it with and without a socket', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 22));
  const service = await createService({ dbPath: ':memory:', clock, config: { logLevel: 'silent', httpAdapter: testHttpAdapter() } });
  t.teardown(() => service.close());
  const { refs } = await service.applyManifest(manifest);
  const me = await service.kernel.handle(plainRequest('/api/v1/me', { authorization: `Bearer ${refs['ada-key']}` }));
  t.equal(me.status, 200);
  t.match((me as { body: unknown }).body, { userId: refs.ada, orgId: refs.acme });
  const port = await service.listen(0, '127.0.0.1');
  const answer = await fetch(`http://127.0.0.1:${port}/api/v1/me`, { headers: { authorization: `Bearer ${refs['bob-key']}` } });
  t.equal(answer.status, 200);
  t.equal(((await answer.json()) as { userId: string }).userId, refs.bob);
});

t.test('close is idempotent and releases the port', async (t) => {
  const service = await createService({ dbPath: ':memory:', config: { logLevel: 'silent', httpAdapter: testHttpAdapter() } });
  const port = await service.listen(0, '127.0.0.1');
  await service.close();
  await service.close();
  await t.rejects(fetch(`http://127.0.0.1:${port}/healthz`), 'nothing listens any more');
});
