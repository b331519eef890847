// Support sessions: an organization admin grants one session to its partner; any lease of that customer reads it by grantId.
import t from 'tap';
import { hashPassword } from '../../../runtime/auth/passwords.js';
import { HOUR } from '../../../runtime/clock.js';
import { newId } from '../../../runtime/ids.js';
import { call } from '../../helpers/http.js';
import { customerBody, staffedCustomer, startPartner, type PartnerEnv } from './partner-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

async function consoleCookie(p: PartnerEnv, email: string, password: string): Promise<string> {
  const login = await call(`${p.c.server.url}/api/v1/console/login`, { method: 'POST', json: { email, password } });
  if (login.status !== 200) throw new Error(`login answered ${login.status}`);
  return (login.headers.get('set-cookie') ?? '').split(';')[0]!;
}

async function appLease(p: PartnerEnv, orgId: string, secret = p.refs['northwind-key']!, appId = p.refs['northwind-app']): Promise<string> {
  return (await p.api('POST', '/token', secret, { orgId, appId })).json.token;
}

t.test('an owner shares one session; the partner reads it with a lease of that customer until expiry or revocation', async (t) => {
  const p = await startPartner(t);
  const customer = await staffedCustomer(p, 'support-co');
  await customer.vouch('op-1', 'operator');
  const opened = await p.api('POST', `/organizations/${customer.orgId}/agents/${customer.automation('welcome')}/sessions`, customer.key, { message: 'I need help' }, { 'x-service-subject': 'op-1' });
  await p.c.settle();
  const sessionId: string = opened.json.sessionId;

  const status = await p.api('GET', `/organizations/${customer.orgId}`, customer.key);
  t.equal(status.status, 200);
  const ownerEmail = 'owner@support-co.example';
  const db = sqlReader(p.c.server.service);
  (await db.run('UPDATE users SET password_hash = ? WHERE email = ?', await hashPassword('owner-password'), ownerEmail));
  const cookie = await consoleCookie(p, ownerEmail, 'owner-password');
  const grants = `${p.c.server.url}/api/v1/support-grants`;
  const created = await call(grants, { method: 'POST', headers: { cookie }, json: { sessionId, expiresInHours: 2 } });
  t.equal(created.status, 201);
  const grant = created.json.grant;
  t.match(grant, { sessionId, partnerId: p.refs.northwind, expiresAt: new Date(p.clock.now() + 2 * HOUR).toISOString(), revokedAt: null });

  const lease = await appLease(p, customer.orgId);
  const read = await p.api('GET', `/support-sessions/${grant.grantId}`, lease);
  t.equal(read.status, 200);
  t.match(read.json, { grantId: grant.grantId, session: { sessionId, automationId: customer.automation('welcome'), messages: [{ role: 'user', text: 'I need help' }] } });
  const workerLease = (await p.api('POST', '/worker-token', customer.key, { orgId: customer.orgId, appId: p.refs['northwind-app'], partnerSubject: 'op-1' })).json.token;
  t.equal((await p.api('GET', `/support-sessions/${grant.grantId}`, workerLease)).status, 200, 'a worker lease of that customer reads it too');

  const unknown = await p.api('GET', `/support-sessions/${newId()}`, lease);
  t.equal(unknown.status, 404);
  const other = await staffedCustomer(p, 'other-support');
  const otherLease = await appLease(p, other.orgId);
  const south = await p.provision('order-south', customerBody('south-support'), { secret: p.refs['southwind-key'] });
  const southLease = await appLease(p, south.json.organization.id, p.refs['southwind-key'], p.refs['southwind-app']);
  for (const [name, secret] of [['another customer\'s lease', otherLease], ['another platform\'s lease', southLease]] as const) {
    const answer = await p.api('GET', `/support-sessions/${grant.grantId}`, secret);
    t.equal(answer.text, unknown.text, `${name}: the same 404 as an unknown grant`);
  }
  t.equal((await p.api('GET', `/support-sessions/${grant.grantId}`, customer.key)).status, 401, 'a partner key is not a lease');
  t.equal((await p.api('GET', '/support-sessions', lease)).status, 404, 'no collection route');

  p.clock.advance(2 * HOUR);
  const fresh = await appLease(p, customer.orgId);
  t.equal((await p.api('GET', `/support-sessions/${grant.grantId}`, fresh)).text, unknown.text, 'an expired grant');

  const second = await call(grants, { method: 'POST', headers: { cookie }, json: { sessionId } });
  t.equal(second.json.grant.expiresAt, new Date(p.clock.now() + 24 * HOUR).toISOString(), 'grants last 24 hours by default');
  t.equal((await p.api('GET', `/support-sessions/${second.json.grant.grantId}`, fresh)).status, 200);
  const revoked = await call(`${grants}/${second.json.grant.grantId}`, { method: 'DELETE', headers: { cookie } });
  t.equal(revoked.status, 200);
  t.ok(revoked.json.grant.revokedAt);
  t.equal((await p.api('GET', `/support-sessions/${second.json.grant.grantId}`, fresh)).text, unknown.text, 'a revoked grant');
  await p.c.settle();
});

t.test('only an organization Owner or Admin who can see the session grants it, and only to a partner the organization has', async (t) => {
  const p = await startPartner(t);
  const customer = await staffedCustomer(p, 'grantor-co');
  const member = await customer.vouch('op-1', 'operator');
  const opened = await p.api('POST', `/organizations/${customer.orgId}/agents/${customer.automation('welcome')}/sessions`, customer.key, { message: 'hi' }, { 'x-service-subject': 'op-1' });
  await p.c.settle();
  const db = sqlReader(p.c.server.service);
  (await db.run('UPDATE users SET password_hash = ? WHERE id = ?', await hashPassword('member-password'), member.userId));
  const email = (await db.value('SELECT email FROM users WHERE id = ?', member.userId)) as string;
  const memberCookie = await consoleCookie(p, email, 'member-password');
  const grants = `${p.c.server.url}/api/v1/support-grants`;
  const byMember = await call(grants, { method: 'POST', headers: { cookie: memberCookie }, json: { sessionId: opened.json.sessionId } });
  t.equal(byMember.status, 403, 'a member who can see the session is not an admin');
  t.equal((await call(grants, { method: 'POST', json: { sessionId: opened.json.sessionId } })).status, 401, 'no console session');

  const ada = await consoleCookie(p, 'ada@acme.test', 'ada-password-1');
  const acmeSession = await p.c.open('lookup', 'ada', { message: '{"id": "c-1"}' });
  await p.c.settle();
  const noPartner = await call(grants, { method: 'POST', headers: { cookie: ada }, json: { sessionId: acmeSession.json.sessionId } });
  t.equal(noPartner.status, 409, 'an organization without a partner platform has nobody to share with');
  const foreign = await call(grants, { method: 'POST', headers: { cookie: ada }, json: { sessionId: opened.json.sessionId } });
  t.equal(foreign.status, 404, 'another organization\'s session is unknown');
  t.equal(await p.count('support_grants'), 0);
});
