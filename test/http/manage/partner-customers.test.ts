// Partner customer management (issue 13 item 6): paged list, suspend/resume stopping keys, leases, tenant calls and fires; support grants.
import t from 'tap';
import { hashPassword } from '../../../runtime/auth/passwords.js';
import { hashSecret, mintSecret } from '../../../runtime/auth/secrets.js';
import { newId } from '../../../runtime/ids.js';
import { bearer, call } from '../../helpers/http.js';
import { customerBody, staffedCustomer, startPartner, type PartnerEnv } from '../partner/partner-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

/** An `sv_` key for the customer's owner, written the way a key-creation route would (hash only). */
async function ownerKey(p: PartnerEnv, orgId: string): Promise<string> {
  const repos = p.c.server.service.store.repos;
  const owner = (await sqlReader(p.c.server.service).get(`SELECT user_id FROM org_memberships WHERE org_id = ? AND role = 'owner'`, orgId)) as { user_id: string };
  const secret = mintSecret('sv_');
  (await repos.credentials.insertApiKey({ id: newId(), userId: owner.user_id, orgId, name: 'test', keyHash: hashSecret(secret), hint: secret.slice(-4), createdAt: p.clock.now(), revokedAt: null }));
  return secret;
}

t.test('the customer list is paged by an opaque cursor and shows only this platform\'s customers', async (t) => {
  const p = await startPartner(t);
  const key = p.refs['northwind-key']!;
  for (const segment of ['page-a', 'page-b', 'page-c']) t.equal((await p.provision(`order-${segment}`, customerBody(segment))).status, 202);
  await p.provision('order-south', customerBody('south-page'), { secret: p.refs['southwind-key'] });

  const first = await p.api('GET', '/organizations?limit=2', key);
  t.equal(first.status, 200);
  t.same(first.json.customers.map((c: any) => c.clientSegment), ['page-a', 'page-b']);
  t.match(first.json.customers[0], { name: 'Customer page-a', suspendedAt: null, directLoginDisabled: false });
  t.type(first.json.nextCursor, 'string');
  const second = await p.api('GET', `/organizations?limit=2&cursor=${first.json.nextCursor}`, key);
  t.same(second.json.customers.map((c: any) => c.clientSegment), ['page-c']);
  t.equal(second.json.nextCursor, null, 'the last page says so');
  const south = await p.api('GET', '/organizations', p.refs['southwind-key']!);
  t.same(south.json.customers.map((c: any) => c.clientSegment), ['south-page'], 'another platform sees only its own');

  for (const query of ['limit=0', 'limit=201', 'limit=x', 'cursor=not-a-cursor', 'extra=1']) {
    const bad = await p.api('GET', `/organizations?${query}`, key);
    t.equal(bad.status, 400, query);
    t.equal(bad.json.error.code, 'VALIDATION');
  }
  t.equal((await p.api('GET', '/organizations', null)).status, 401);
  t.equal((await p.api('GET', '/organizations', 'svp_bogus')).status, 401);
});

t.test('suspend stops the customer\'s keys, leases and tenant calls at once (fires: suspended-fires.test.ts); resume restores them; both idempotent', async (t) => {
  const p = await startPartner(t);
  const key = p.refs['northwind-key']!;
  const customer = await staffedCustomer(p, 'susp-co');
  await customer.vouch('op-1', 'operator');
  const svKey = (await ownerKey(p, customer.orgId));
  const me = () => call(`${p.c.server.url}/api/v1/me`, { headers: bearer(svKey) });
  const lease = (await p.api('POST', '/token', key, { orgId: customer.orgId, appId: p.refs['northwind-app'] })).json.token as string;
  const tenantRead = () => p.api('GET', `/organizations/${customer.orgId}/authoring/integrations`, lease, undefined, { 'x-service-subject': 'op-1' });
  const worker = (await p.api('POST', '/worker-token', key, { orgId: customer.orgId, appId: p.refs['northwind-app'], partnerSubject: 'op-1' })).json.token as string;
  const workerRead = () => p.api('GET', '/worker/approvals', worker);
  t.equal((await me()).status, 200);
  t.equal((await tenantRead()).status, 200, 'authoring is mirrored for the tenant');
  t.equal((await workerRead()).status, 200);

  const suspended = await p.api('POST', `/organizations/${customer.orgId}/suspend`, key);
  t.equal(suspended.status, 200);
  t.equal(suspended.json.organization.suspendedAt, new Date(p.clock.now()).toISOString());
  t.equal((await me()).status, 404, 'the customer\'s sv_ key stops at once');
  const tenant = await tenantRead();
  t.equal(tenant.status, 401, 'its app lease stops at once');
  t.equal((await workerRead()).status, 401, 'so do its worker leases');
  const byKey = await p.api('GET', `/organizations/${customer.orgId}/authoring/integrations`, key, undefined, { 'x-service-subject': 'op-1' });
  t.equal(byKey.status, 409, 'tenant calls with the partner key are refused with a reason the partner can act on');
  t.equal(byKey.json.error.code, 'CONFLICT');
  t.equal((await p.api('POST', '/token', key, { orgId: customer.orgId, appId: p.refs['northwind-app'] })).status, 409, 'no new lease is minted for it');
  const again = await p.api('POST', `/organizations/${customer.orgId}/suspend`, key);
  t.equal(again.json.organization.suspendedAt, suspended.json.organization.suspendedAt, 'suspending twice keeps the first time');
  t.equal((await p.api('GET', `/organizations/${customer.orgId}`, key)).json.organization.suspendedAt, suspended.json.organization.suspendedAt, 'the read shows it');

  const resumed = await p.api('POST', `/organizations/${customer.orgId}/resume`, key);
  t.equal(resumed.status, 200);
  t.equal(resumed.json.organization.suspendedAt, null);
  t.equal((await me()).status, 200, 'the key works again');
  t.equal((await tenantRead()).status, 200, 'the lease works again');
  t.equal((await workerRead()).status, 200, 'the worker lease too');
  t.equal((await p.api('POST', `/organizations/${customer.orgId}/resume`, key)).status, 200, 'resume is idempotent');

  const south = await p.provision('order-south', customerBody('south-susp'), { secret: p.refs['southwind-key'] });
  const unknown = await p.api('POST', `/organizations/${newId()}/suspend`, key);
  t.equal(unknown.status, 404);
  const foreign = await p.api('POST', `/organizations/${south.json.organization.id}/suspend`, key);
  t.equal(foreign.text, unknown.text, 'another platform\'s customer: the same 404 as an unknown one');
  t.equal((await p.api('POST', `/organizations/${customer.orgId}/suspend`, null)).status, 401);
  const withBody = await p.api('POST', `/organizations/${customer.orgId}/suspend`, key, { reason: 'x' });
  t.equal(withBody.status, 200, 'the route takes no body; one sent is ignored');
});

t.test('a suspended customer\'s console sessions stop and no user token is minted; resume restores the same session', async (t) => {
  const p = await startPartner(t);
  const customer = await staffedCustomer(p, 'quiet-co');
  const db = sqlReader(p.c.server.service);
  (await db.run('UPDATE users SET password_hash = ? WHERE email = ?', await hashPassword('owner-password'), 'owner@quiet-co.example'));
  const login = await call(`${p.c.server.url}/api/v1/console/login`, { method: 'POST', json: { email: 'owner@quiet-co.example', password: 'owner-password' } });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const members = () => call(`${p.c.server.url}/api/v1/org/members`, { headers: { cookie } });
  t.equal((await members()).status, 200);
  await p.api('POST', `/organizations/${customer.orgId}/suspend`, customer.key);
  t.equal((await members()).status, 401, 'the console session stops');
  const token = await call(`${p.c.server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } });
  t.equal(token.status, 401, 'no user token is minted');
  await p.api('POST', `/organizations/${customer.orgId}/resume`, customer.key);
  t.equal((await members()).status, 200, 'the same session works after resume');
});

t.test('support grants of a customer, paged, for its own platform only', async (t) => {
  const p = await startPartner(t);
  const key = p.refs['northwind-key']!;
  const customer = await staffedCustomer(p, 'grant-co');
  await customer.vouch('op-1', 'operator');
  const opened = await p.api('POST', `/organizations/${customer.orgId}/agents/${customer.automation('welcome')}/sessions`, key, { message: 'help' }, { 'x-service-subject': 'op-1' });
  await p.c.settle();
  const db = sqlReader(p.c.server.service);
  (await db.run('UPDATE users SET password_hash = ? WHERE email = ?', await hashPassword('owner-password'), 'owner@grant-co.example'));
  const login = await call(`${p.c.server.url}/api/v1/console/login`, { method: 'POST', json: { email: 'owner@grant-co.example', password: 'owner-password' } });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await call(`${p.c.server.url}/api/v1/support-grants`, { method: 'POST', headers: { cookie }, json: { sessionId: opened.json.sessionId, expiresInHours: 2 } });
    t.equal(created.status, 201);
    ids.push(created.json.grant.grantId);
    p.clock.advance(1000);
  }
  const first = await p.api('GET', `/organizations/${customer.orgId}/support-grants?limit=2`, key);
  t.equal(first.status, 200);
  t.same(first.json.grants.map((g: any) => g.grantId), ids.slice(0, 2));
  const rest = await p.api('GET', `/organizations/${customer.orgId}/support-grants?limit=2&cursor=${first.json.nextCursor}`, key);
  t.same(rest.json.grants.map((g: any) => g.grantId), ids.slice(2));
  t.equal(rest.json.nextCursor, null);
  const south = await p.api('GET', `/organizations/${customer.orgId}/support-grants`, p.refs['southwind-key']!);
  t.equal(south.status, 404, 'another platform: the neutral 404');
});
