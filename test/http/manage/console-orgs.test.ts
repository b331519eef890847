// The console's organization picker: a person's active organizations, and switching the cookie between them.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { call } from '../../helpers/http.js';
import { sqlReader } from '../../helpers/sql.js';
import { startManage } from './org-manage-fixture.js';

t.test('a person in two organizations signs in without one, lists both with roles, and switches', async (t) => {
  const m = await startManage(t);
  const { acme, globex, ada } = m.c.refs as Record<string, string>;
  const store = m.c.server.service.store;
  await store.writer.submit(async (tx) => (await tx.repos.tenancy.setOrgRole(globex, ada, 'admin', 0)));

  const login = await call(`${m.url}/api/v1/console/login`, { method: 'POST', json: { email: 'ada@acme.test', password: 'ada-password-1' } });
  t.equal(login.json.orgId, null, 'several organizations: none selected yet');
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const listed = await m.as({ cookie }, 'GET', '/console/organizations');
  t.equal(listed.status, 200, listed.text);
  t.same(listed.json, {
    organizations: [
      { orgId: acme, name: 'Acme', role: 'owner' },
      { orgId: globex, name: 'Globex', role: 'admin' },
    ],
    currentOrgId: null,
  });
  t.match(listed.headers.get('cache-control'), /no-store/);
  t.equal((await m.as({ cookie }, 'GET', '/org/members')).status, 401, 'without an organization the cookie manages nothing');

  const chosen = await m.as({ cookie }, 'POST', '/console/organization', { orgId: globex });
  t.equal(chosen.status, 200, chosen.text);
  t.same(chosen.json, { userId: ada, orgId: globex });
  const setCookie = chosen.headers.get('set-cookie') ?? '';
  t.match(setCookie, /HttpOnly/);
  t.match(setCookie, /SameSite=Lax/);
  const next = setCookie.split(';')[0]!;
  t.not(next, cookie, 'a new session secret');
  t.equal((await m.as({ cookie }, 'GET', '/console/organizations')).status, 401, 'the old cookie stops working');
  t.equal((await m.as({ cookie: next }, 'GET', '/console/organizations')).json.currentOrgId, globex);
  const me = await m.as({ cookie: next }, 'GET', '/me');
  t.equal(me.json.orgId, globex, 'the console now works in the chosen organization');
  const members = await m.as({ cookie: next }, 'GET', '/org/members');
  t.ok(members.json.members.some((x: any) => x.email === 'gina@globex.test'), 'and manages it');

  const back = await m.as({ cookie: next }, 'POST', '/console/organization', { orgId: acme });
  t.equal(back.status, 200, 'switching again, from a selected organization');
  const third = (back.headers.get('set-cookie') ?? '').split(';')[0]!;
  t.equal((await m.as({ cookie: third }, 'GET', '/me')).json.orgId, acme);
});

t.test('the picker refuses what the person cannot work in, plainly', async (t) => {
  const m = await startManage(t);
  const { globex, ada } = m.c.refs as Record<string, string>;
  const store = m.c.server.service.store;
  await store.writer.submit(async (tx) => (await tx.repos.tenancy.setOrgRole(globex, ada, 'member', 0)));
  const cookie = await m.login('ada@acme.test', 'ada-password-1');

  t.equal((await m.as(null, 'GET', '/console/organizations')).status, 401, 'no cookie: 401');
  t.equal((await m.as({ cookie: 'service_session=svs_nope' }, 'GET', '/console/organizations')).status, 401, 'a stale cookie: 401');
  t.equal((await m.as(null, 'POST', '/console/organization', { orgId: globex })).status, 401);
  for (const body of [{}, { orgId: 'acme' }, { orgId: globex, extra: 1 }]) {
    const bad = await m.as({ cookie }, 'POST', '/console/organization', body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.equal(bad.json.error.code, 'VALIDATION');
  }
  const stranger = await m.as({ cookie }, 'POST', '/console/organization', { orgId: newId() });
  t.equal(stranger.status, 404, 'an organization the person is not in');
  t.equal(stranger.json.error.code, 'NOT_FOUND');

  // Globex's owner disables Ada there: the organization leaves her list and cannot be chosen.
  const disabled = await m.as('gina', 'POST', `/org/members/${ada}/disable`);
  t.equal(disabled.status, 200, disabled.text);
  const listed = await m.as({ cookie }, 'GET', '/console/organizations');
  t.same(listed.json.organizations.map((o: any) => o.name), ['Acme'], 'a disabled membership is not offered');
  t.equal((await m.as({ cookie }, 'POST', '/console/organization', { orgId: globex })).status, 404);

  await sqlReader(m.c.server.service).run('UPDATE org_memberships SET disabled_at = NULL WHERE org_id = ? AND user_id = ?', globex, ada);
  await sqlReader(m.c.server.service).run('UPDATE organizations SET suspended_at = 1 WHERE id = ?', globex);
  t.same((await m.as({ cookie }, 'GET', '/console/organizations')).json.organizations.map((o: any) => o.name), ['Acme'], 'a suspended organization is not offered');
  await sqlReader(m.c.server.service).run('UPDATE organizations SET suspended_at = NULL, direct_login_disabled = true WHERE id = ?', globex);
  const direct = await m.as({ cookie }, 'POST', '/console/organization', { orgId: globex });
  t.equal(direct.status, 403, 'direct sign-in disabled there: said plainly');
  t.equal(direct.json.error.code, 'FORBIDDEN');
});

t.test('switching organization is a cookie write: a cross-site request is refused and the cookie keeps working', async (t) => {
  const m = await startManage(t);
  const { globex, ada } = m.c.refs as Record<string, string>;
  const store = m.c.server.service.store;
  await store.writer.submit(async (tx) => (await tx.repos.tenancy.setOrgRole(globex, ada, 'admin', 0)));
  const cookie = await m.login('ada@acme.test', 'ada-password-1');
  for (const forged of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }] as Array<Record<string, string>>) {
    const refused = await call(`${m.url}/api/v1/console/organization`, { method: 'POST', headers: { cookie, ...forged }, json: { orgId: globex } });
    t.same([refused.status, refused.json.error.code, refused.json.error.details?.reason], [403, 'FORBIDDEN', 'cross_origin'], JSON.stringify(forged));
    t.notOk(refused.headers.get('set-cookie'), 'no new session');
  }
  t.equal((await m.as({ cookie }, 'GET', '/console/organizations')).status, 200, 'the cookie still works: nothing switched');
  const same = await call(`${m.url}/api/v1/console/organization`, { method: 'POST', headers: { cookie, 'sec-fetch-site': 'same-origin' }, json: { orgId: globex } });
  t.equal(same.status, 200, 'the console itself (same origin) switches');
});
