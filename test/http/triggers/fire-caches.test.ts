// Keys and fire plans are read from memory (storage/read-cache.ts), yet every write that changes them takes effect on
// the very next request: key revocation, a disabled entitlement, a paused trigger, a changed subscriber list.
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { startFireServer } from './fire-server.js';

t.test('a revoked key stops working on the next request, though it was just read from the cache', async (t) => {
  const f = await startFireServer(t);
  const fire = () => f.fire('bob', { triggerId: f.refs['new-lead'], input: { id: 'c-1' } });
  t.equal((await fire()).status, 202);
  t.equal((await fire()).status, 202, 'served with the cached key');
  const keys = await call(`${f.server.url}/api/v1/api-keys`, { headers: bearer(f.key('bob')) });
  const keyId = keys.json.apiKeys[0].id;
  t.ok(keyId, 'bob lists his key');
  const revoked = await call(`${f.server.url}/api/v1/api-keys/${keyId}`, { method: 'DELETE', headers: bearer(f.key('bob')) });
  t.ok(revoked.status < 300, `revoked (${revoked.status})`);
  const refused = await fire();
  t.equal(refused.status, 404, 'the revoked key is refused at once (an unknown key is the uniform 404 on key routes)');
  await f.settle();
});

t.test('a disabled entitlement, a paused trigger and a changed subscriber list change the next fire', async (t) => {
  const f = await startFireServer(t);
  const { repos, writer } = f.server.service.store;
  const fire = () => f.fire('bob', { triggerId: f.refs['new-lead'], input: { id: 'c-1' } });
  const first = await fire();
  t.equal(first.json.sessions.length, 2, 'both subscribers start (plan now cached)');
  const org = (await repos.automations.automation(f.refs.lookup))!.orgId;
  // The partner entitlements service writes exactly this (runtime/partners/entitlements.ts setOverride).
  await writer.submit(async (tx) => (await tx.repos.entitlements.set({ orgId: org, automationId: f.refs.lookup, enabled: false, updatedAt: Date.now() })));
  const gated = await fire();
  t.same(gated.json.sessions.map((s: { automationId: string }) => s.automationId), [f.refs.enrich], 'the disabled subscriber is skipped at once');
  const run = await f.run('bob', 'new-lead', gated.json.runId);
  t.equal(run.json.subscribers[0].code, 'ENTITLEMENT_DISABLED');

  const manage = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${f.server.url}/api/v1/triggers/${f.refs['new-lead']}${path}`, { ...init, headers: bearer(f.key('ada')) });
  t.equal((await manage('/subscribers/' + f.refs.enrich, { method: 'DELETE' })).status < 300, true, 'enrich unsubscribed');
  t.same((await fire()).json.sessions, [], 'the new subscriber list applies at once');
  t.equal((await manage('/pause', { method: 'POST', json: {} })).status, 200);
  t.equal((await fire()).status, 404, 'a paused trigger is not fireable at once');
  await f.settle();
});

t.test('GET /me serves the user row from memory, yet a rename or a disabled user shows on the next request', async (t) => {
  const f = await startFireServer(t);
  const { repos, writer } = f.server.service.store;
  const me = () => call(`${f.server.url}/api/v1/me`, { headers: bearer(f.key('bob')) });
  t.equal((await me()).json.name, 'Bob Operator');
  t.equal((await me()).json.name, 'Bob Operator', 'served with the cached row');
  const userId = (await me()).json.userId as string;
  await writer.submit(async (tx) => (await tx.repos.tenancy.updateUser({ id: userId, name: 'Robert Operator', passwordHash: null })));
  t.equal((await me()).json.name, 'Robert Operator', 'the rename is read at once');
  await writer.submit(async (tx) => (await tx.repos.tenancy.setUserDisabled(userId, true)));
  t.equal((await me()).status, 404, 'a disabled user\'s key is refused at once');
});
