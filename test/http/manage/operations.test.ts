// GET /api/v1/org/operations (issue 14 item 8): the organization's live work, Owners and Admins only, process-wide counts apart.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials } from '../sessions/conversation-fixture.js';
import { startManage } from './org-manage-fixture.js';

t.test('running, suspended, fires per second and webhook failures of one organization, as they change', async (t) => {
  const m = await startManage(t);
  const { c } = m;
  const ops = async (who = 'ada') => {
    const answer = await m.as(who, 'GET', '/org/operations');
    if (answer.status !== 200) throw new Error(`operations answered ${answer.status}: ${answer.text}`);
    return answer.json;
  };
  const idle = await ops();
  t.match(idle, {
    organization: { turns: { queued: 0, running: 0, resumeQueued: 0, suspended: 0 }, pendingApprovals: 0, fires: { windowSeconds: 10, count: 0, perSecond: 0 }, webhooks: { windowHours: 24, failed: 0, retrying: 0, lastFailureAt: null } },
    process: { openStreams: 0, streamedSessions: 0, queuedExecutions: 0 },
  });
  t.equal(idle.at, new Date(c.clock.now()).toISOString());

  // A turn whose tool call is held upstream is running until the upstream answers.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  c.upstream.respond((request, res) => void held.then(() => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ id: 'c-1', tier: 'pro' })); }));
  const opened = await c.open('lookup', 'ada', { message: '{"id": "c-1"}', callerCredentials: crmCredentials() });
  t.equal(opened.status, 202, opened.text);
  const deadline = Date.now() + 10_000;
  while ((await ops()).organization.turns.running !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.equal((await ops()).organization.turns.running, 1, 'the held turn is running');
  t.equal((await ops('gina')).organization.turns.running, 0, 'another organization sees none of it');
  const stream = new AbortController();
  const streaming = await fetch(`${m.url}/api/v1/agents/sessions/${opened.json.sessionId}/stream`, { headers: bearer(c.key('ada')), signal: stream.signal });
  t.equal(streaming.status, 200);
  // The stream's headers may go out before its subscription is registered (a replay bounds read first, a round trip on
  // PostgreSQL): wait for the count as for the running turn above.
  const streamDeadline = Date.now() + 10_000;
  while ((await ops('gina')).process.openStreams !== 1 && Date.now() < streamDeadline) await new Promise((r) => setTimeout(r, 20));
  t.equal((await ops('gina')).process.openStreams, 1, 'open streams are process-wide: every organization sees the same count');
  stream.abort();
  release();
  await c.settle();
  t.equal((await ops()).organization.turns.running, 0, 'and settles');

  // A gated write suspends its turn on an approval.
  c.upstream.respond((request, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"id":"c-1","tier":"pro"}'); });
  const gated = await c.open('upgrader', 'ada', { message: '{"id": "c-1", "tier": "enterprise"}', callerCredentials: crmCredentials() });
  t.equal(gated.status, 202, gated.text);
  await c.settle();
  t.match((await ops()).organization, { turns: { suspended: 1, running: 0 }, pendingApprovals: 1 });

  // Three accepted fires in the window: 0.3 per second; they leave the window after ten seconds.
  for (let i = 0; i < 3; i += 1) {
    const fired = await call(`${m.url}/api/v1/triggers/fire`, { method: 'POST', headers: bearer(c.key('ada')), json: { triggerId: c.refs['new-lead'], input: { id: `c-${i}` } } });
    t.equal(fired.status, 202, fired.text);
  }
  await c.settle();
  t.match((await ops()).organization.fires, { count: 3, perSecond: 0.3 });
  t.equal((await ops('gina')).organization.fires.count, 0);
  c.clock.advance(11_000);
  t.match((await ops()).organization.fires, { count: 0, perSecond: 0 });

  // Webhook deliveries of the organization's endpoints: one failed for good, one retrying, one delivered.
  const store = c.server.service.store;
  const now = c.clock.now();
  const endpointId = newId();
  await store.writer.submit(async (tx) => {
    (await tx.repos.webhooks.insertEndpoint({ id: endpointId, orgId: c.refs.acme!, url: 'http://127.0.0.1:9/hook', secretSealed: Buffer.from('x'), events: [], active: false, createdBy: null, createdAt: now }));
    const delivery = { endpointId, eventType: 'execution.completed', payload: '{}', lastStatus: 500, lastError: null, createdAt: now, runId: null };
    (await tx.repos.webhooks.insertDelivery({ ...delivery, id: newId(), status: 'failed', attempts: 8, nextAttemptAt: null, updatedAt: now - 5000 }));
    (await tx.repos.webhooks.insertDelivery({ ...delivery, id: newId(), status: 'pending', attempts: 2, nextAttemptAt: now + 3_600_000, updatedAt: now - 1000 }));
    (await tx.repos.webhooks.insertDelivery({ ...delivery, id: newId(), status: 'delivered', attempts: 1, nextAttemptAt: null, updatedAt: now }));
  });
  t.same((await ops()).organization.webhooks, { windowHours: 24, failed: 1, retrying: 1, lastFailureAt: new Date(now - 1000).toISOString() });
  t.equal((await ops('gina')).organization.webhooks.failed, 0);
});

t.test('Owners and Admins only; the usual management answers otherwise', async (t) => {
  const m = await startManage(t);
  t.equal((await m.as('eve', 'GET', '/org/operations')).status, 200, 'an Admin');
  const member = await m.as('bob', 'GET', '/org/operations');
  t.equal(member.status, 403);
  t.equal(member.json.error.code, 'FORBIDDEN');
  t.equal((await m.as(null, 'GET', '/org/operations')).status, 401);
  t.equal((await m.as({ token: 'sv_nope' }, 'GET', '/org/operations')).status, 404);
  const cookie = await m.login('ada@acme.test', 'ada-password-1');
  const viaCookie = await m.as({ cookie }, 'GET', '/org/operations');
  t.equal(viaCookie.status, 200, 'the console cookie');
  t.match(viaCookie.headers.get('cache-control'), /no-store/);
  t.equal((await m.as('ada', 'GET', '/org/operations?x=1')).status, 200, 'no query is read');
});
