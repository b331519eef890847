// Read-only tool calls over kept-alive connections: reused per organization and identity only, never for a write, and
// a pooled socket the upstream closed is retried once on a fresh connection (runtime/tools/connection-pools.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createConnectionPools, type ConnectionPools } from '../../../runtime/tools/connection-pools.js';
import { createHttpIntegrationExecutor, type ToolIdentity } from '../../../runtime/tools/http-integration.executor.js';
import type { ToolResult } from '../../../runtime/tools/tool-result.js';
import { crmIntegration, toolOf } from './crm-integration.fixture.js';

const ORG: ToolIdentity = { runAs: 'organization', token: 'org-token-1111', fields: { api_key: 'org-key-2222' } };

interface Seen {
  /** The client's port of the connection each request came on: one value per connection. */
  readonly socket: number;
  readonly method: string;
}

/** A loopback upstream that records which connection carried each request; `onRequest` may drop one instead of answering. */
async function upstream(t: Test, onRequest: (req: IncomingMessage, res: ServerResponse, index: number) => boolean = () => true) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ socket: req.socket.remotePort!, method: req.method! });
      if (!onRequest(req, res, seen.length - 1)) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { seen, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function executorOn(t: Test, baseUrl: string, pools: ConnectionPools = createConnectionPools()) {
  t.teardown(() => pools.close());
  const integration = crmIntegration(baseUrl);
  const executor = createHttpIntegrationExecutor({ pools });
  return (name: string, orgId: string | undefined, identity: ToolIdentity = ORG): Promise<ToolResult> =>
    executor.execute({ integration, tool: toolOf(integration, name), args: name === 'crm.get_contact' ? { id: 'c1' } : { id: 'c1', tier: 'pro' }, identity, ...(orgId ? { orgId } : {}) });
}

const sockets = (seen: readonly Seen[]): number => new Set(seen.map((s) => s.socket)).size;

t.test('read-only calls of one organization and identity reuse one connection', async (t) => {
  const up = await upstream(t);
  const call = executorOn(t, up.baseUrl);
  for (let i = 0; i < 4; i++) t.match(await call('crm.get_contact', 'org-a'), { ok: true });
  t.equal(up.seen.length, 4);
  t.equal(sockets(up.seen), 1, 'four sequential reads, one connection');
});

t.test('another organization, another identity or no organization never gets that connection', async (t) => {
  const up = await upstream(t);
  const call = executorOn(t, up.baseUrl);
  await call('crm.get_contact', 'org-a');
  await call('crm.get_contact', 'org-b');
  await call('crm.get_contact', 'org-a', { runAs: 'caller', token: 'caller-token-3333' });
  await call('crm.get_contact', 'org-a', { ...ORG, fields: { api_key: 'another-key-4444' } });
  await call('crm.get_contact', undefined);
  await call('crm.get_contact', undefined);
  t.equal(sockets(up.seen), 6, 'each of the six calls came on its own connection');
  await call('crm.get_contact', 'org-a');
  t.equal(up.seen.at(-1)!.socket, up.seen[0]!.socket, 'the first scope still has its connection');
});

t.test('a write dials a fresh connection for itself, every time', async (t) => {
  const up = await upstream(t);
  const call = executorOn(t, up.baseUrl);
  await call('crm.get_contact', 'org-a');
  await call('crm.update_contact', 'org-a');
  await call('crm.update_contact', 'org-a');
  t.same(up.seen.map((s) => s.method), ['GET', 'PATCH', 'PATCH']);
  t.equal(sockets(up.seen), 3, 'neither write reused the pooled connection nor each other\'s');
});

t.test('a pooled connection the upstream drops is retried once on a fresh one; a fresh connection dropped is not', async (t) => {
  // The second request (the first on a reused connection) is dropped without an answer, as an upstream closing an idle
  // keep-alive socket does; so is the last one, which arrives on a fresh connection.
  let dropFrom = Infinity;
  const up = await upstream(t, (req, _res, index) => {
    if (index !== 1 && index < dropFrom) return true;
    req.socket.destroy();
    return false;
  });
  const call = executorOn(t, up.baseUrl);
  t.match(await call('crm.get_contact', 'org-a'), { ok: true });
  t.match(await call('crm.get_contact', 'org-a'), { ok: true }, 'answered by the retry');
  t.equal(up.seen.length, 3, 'the dropped request and its one retry');
  t.equal(up.seen[1]!.socket, up.seen[0]!.socket, 'the dropped one came on the pooled connection');
  t.not(up.seen[2]!.socket, up.seen[1]!.socket, 'the retry on another');

  dropFrom = up.seen.length;
  const fresh = await call('crm.get_contact', 'org-z');
  t.match(fresh, { ok: false, code: 'UPSTREAM_UNAVAILABLE' }, 'a fresh connection dropped is a failure, not a retry');
  t.equal(up.seen.length, 4, 'sent once');
});

t.test('a dropped write is never sent again', async (t) => {
  const up = await upstream(t, (req, _res, index) => {
    if (index === 0) return true;
    req.socket.destroy();
    return false;
  });
  const call = executorOn(t, up.baseUrl);
  await call('crm.get_contact', 'org-a');
  t.match(await call('crm.update_contact', 'org-a'), { ok: false, code: 'UPSTREAM_UNAVAILABLE' });
  t.equal(up.seen.length, 2, 'the write reached the upstream once');
});

t.test('pools are bounded (least recently used closed first) and closed with the runtime', async (t) => {
  const up = await upstream(t);
  const pools = createConnectionPools({ maxPools: 2 });
  const call = executorOn(t, up.baseUrl, pools);
  await call('crm.get_contact', 'org-a');
  await call('crm.get_contact', 'org-b');
  await call('crm.get_contact', 'org-a');
  await call('crm.get_contact', 'org-c');
  t.equal(pools.size, 2);
  await call('crm.get_contact', 'org-a');
  t.equal(up.seen.at(-1)!.socket, up.seen[0]!.socket, 'org-a was used more recently than org-b: its pool stayed');
  await call('crm.get_contact', 'org-b');
  t.not(up.seen.at(-1)!.socket, up.seen[1]!.socket, "org-b's pool was closed with its socket");
  pools.close();
  t.equal(pools.size, 0);
  await call('crm.get_contact', 'org-a');
  t.not(up.seen.at(-1)!.socket, up.seen[0]!.socket, 'after close, a new connection');
});
