// Organization members over HTTP (issue 13 item 6): Owner/Admin only, invitation link once, roles, disable stops every credential.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { call } from '../../helpers/http.js';
import { startManage } from './org-manage-fixture.js';

t.test('listing members: Owner/Admin only, paged, with the console cookie or an sv_ key', async (t) => {
  const m = await startManage(t);
  const all = await m.as('ada', 'GET', '/org/members');
  t.equal(all.status, 200);
  t.same(all.json.members.map((x: any) => x.email), ['ada@acme.test', 'bob@acme.test', 'eve@acme.test', 'vic@acme.test']);
  t.match(all.json.members[1], { orgRole: 'member', status: 'active', domainRoles: [{ role: 'operator' }] });
  const first = await m.as('eve', 'GET', '/org/members?limit=3');
  t.equal(first.json.members.length, 3);
  const rest = await m.as('eve', 'GET', `/org/members?limit=3&cursor=${first.json.nextCursor}`);
  t.same(rest.json.members.map((x: any) => x.email), ['vic@acme.test']);
  t.equal(rest.json.nextCursor, null);
  const cookie = await m.login('ada@acme.test', 'ada-password-1');
  t.equal((await m.as({ cookie }, 'GET', '/org/members')).status, 200, 'the console cookie works');
  const token = (await call(`${m.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } })).json.token;
  t.equal((await m.as({ token }, 'GET', '/org/members')).status, 200, 'an svu_ token works');

  const member = await m.as('bob', 'GET', '/org/members');
  t.equal(member.status, 403, 'a plain member: 403 inside the organization');
  t.equal(member.json.error.code, 'FORBIDDEN');
  t.equal((await m.as(null, 'GET', '/org/members')).status, 401, 'no credential: the console 401');
  const badKey = await m.as({ token: 'sv_nope' }, 'GET', '/org/members');
  t.equal(badKey.status, 404, 'a bearer that does not resolve: the uniform 404');
  t.equal((await m.as('ada', 'GET', '/org/members?cursor=zzz')).status, 400);
  const gina = await m.as('gina', 'GET', '/org/members');
  t.same(gina.json.members.map((x: any) => x.email), ['gina@globex.test'], 'each organization sees its own');
});

t.test('inviting: a single-use link shown once, stored hashed, redeemed through activation', async (t) => {
  const m = await startManage(t);
  const domainId = m.c.refs.sales!;
  const invited = await m.as('ada', 'POST', '/org/members', { email: 'nia@acme.test', name: 'Nia New', orgRole: 'member', domainRoles: [{ domainId, role: 'editor' }] });
  t.equal(invited.status, 201);
  t.match(invited.json.member, { email: 'nia@acme.test', orgRole: 'member', status: 'invited', domainRoles: [{ domainId, role: 'editor' }] });
  const link: string = invited.json.invitationLink;
  const secret = /#token=(svi_[A-Za-z0-9_-]+)/.exec(link)?.[1];
  t.ok(secret, 'the link carries the secret in its fragment');
  t.equal(await m.c.count('SELECT COUNT(*) AS n FROM invitations WHERE CAST(token_hash AS TEXT) LIKE ?', `%${secret}%`), 0);
  t.notOk(m.c.server.logs.join('').includes(secret!), 'never in the logs');
  const listed = await m.as('ada', 'GET', '/org/members');
  t.notOk(listed.text.includes(secret!), 'never in a later answer');

  const activated = await call(`${m.url}/api/v1/console/activate`, { method: 'POST', json: { token: secret, password: 'nia-password-1' } });
  t.equal(activated.status, 200);
  t.equal((await call(`${m.url}/api/v1/console/activate`, { method: 'POST', json: { token: secret, password: 'other-password' } })).status, 404, 'single use');
  const after = await m.as('ada', 'GET', '/org/members');
  t.equal(after.json.members.find((x: any) => x.email === 'nia@acme.test').status, 'active');

  t.equal((await m.as('ada', 'POST', '/org/members', { email: 'nia@acme.test', name: 'Nia', orgRole: 'member' })).status, 409, 'already a member');
  const existing = await m.as('ada', 'POST', '/org/members', { email: 'gina@globex.test', name: 'Gina', orgRole: 'member' });
  t.equal(existing.status, 201);
  t.equal(existing.json.invitationLink, null, 'an account with a password gets no link (a link would take it over)');
  t.equal((await m.as('eve', 'POST', '/org/members', { email: 'o2@acme.test', name: 'O', orgRole: 'owner' })).status, 403, 'an Admin cannot invite an Owner');
  t.equal((await m.as('bob', 'POST', '/org/members', { email: 'x@acme.test', name: 'X' })).status, 403);
  for (const body of [{ email: 'y@acme.test', name: 'Y', extra: 1 }, { email: 'not-an-email', name: 'Y' }, { email: 'y@acme.test', name: 'Y', orgRole: 'god' }, {}]) {
    const bad = await m.as('ada', 'POST', '/org/members', body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.equal(bad.json.error.code, 'VALIDATION');
  }
  const foreignDomain = await m.as('ada', 'POST', '/org/members', { email: 'z@acme.test', name: 'Z', domainRoles: [{ domainId: m.c.refs.ops, role: 'viewer' }] });
  t.equal(foreignDomain.status, 404, 'another organization\'s domain: the uniform 404');
  t.equal(await m.c.count(`SELECT COUNT(*) AS n FROM users WHERE email = 'z@acme.test'`), 0, 'and nothing was written');
});

t.test('roles: owners are changed only by owners, the last owner stays, foreign ids are 404', async (t) => {
  const m = await startManage(t);
  const users = (await m.as('ada', 'GET', '/org/members')).json.members as any[];
  const id = (email: string) => users.find((x) => x.email === email).userId as string;
  const promoted = await m.as('eve', 'PATCH', `/org/members/${id('bob@acme.test')}`, { orgRole: 'admin', domainRoles: [{ domainId: m.c.refs.sales, role: 'editor' }] });
  t.equal(promoted.status, 200);
  t.match(promoted.json.member, { orgRole: 'admin', domainRoles: [{ role: 'editor' }] });
  const removed = await m.as('eve', 'PATCH', `/org/members/${id('bob@acme.test')}`, { domainRoles: [{ domainId: m.c.refs.sales, role: null }] });
  t.same(removed.json.member.domainRoles, []);
  t.equal((await m.as('eve', 'PATCH', `/org/members/${id('ada@acme.test')}`, { orgRole: 'member' })).status, 403, 'an Admin cannot change an Owner');
  t.equal((await m.as('eve', 'PATCH', `/org/members/${id('vic@acme.test')}`, { orgRole: 'owner' })).status, 403, 'nor make one');
  const last = await m.as('ada', 'PATCH', `/org/members/${id('ada@acme.test')}`, { orgRole: 'admin' });
  t.equal(last.status, 409, 'the last active Owner stays');
  t.equal((await m.as('ada', 'PATCH', `/org/members/${id('vic@acme.test')}`, {})).status, 400, 'an empty change is refused');
  t.equal((await m.as('ada', 'PATCH', `/org/members/${id('vic@acme.test')}`, { orgRole: 'member', x: 1 })).status, 400, 'strict body');
  const gina = await m.as('gina', 'GET', '/org/members');
  const foreign = await m.as('ada', 'PATCH', `/org/members/${gina.json.members[0].userId}`, { orgRole: 'member' });
  const unknown = await m.as('ada', 'PATCH', `/org/members/${newId()}`, { orgRole: 'member' });
  t.equal(unknown.status, 404);
  t.equal(foreign.text, unknown.text, 'another organization\'s person: the same 404');
});

t.test('disabling a member stops their key, user token and console session at once; enabling restores them', async (t) => {
  const m = await startManage(t);
  const users = (await m.as('ada', 'GET', '/org/members')).json.members as any[];
  const bob = users.find((x) => x.email === 'bob@acme.test').userId as string;
  const cookie = await m.login('bob@acme.test', 'bob-password-1');
  const token = (await call(`${m.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } })).json.token as string;
  const checks = async () => [
    (await m.as('bob', 'GET', '/me')).status,
    (await m.as({ token }, 'GET', '/authoring/integrations')).status,
    (await call(`${m.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } })).status,
  ];
  t.same(await checks(), [200, 200, 200]);
  const disabled = await m.as('eve', 'POST', `/org/members/${bob}/disable`);
  t.equal(disabled.status, 200);
  t.equal(disabled.json.member.status, 'disabled');
  t.same(await checks(), [404, 404, 401], 'sv_ key, svu_ token and console session all stop');
  t.equal((await m.as('eve', 'POST', `/org/members/${bob}/disable`)).status, 200, 'idempotent');
  t.equal((await m.as('eve', 'POST', `/org/members/${bob}/enable`)).json.member.status, 'active');
  t.same(await checks(), [200, 200, 200], 'everything works again');

  const ada = users.find((x) => x.email === 'ada@acme.test').userId as string;
  t.equal((await m.as('eve', 'POST', `/org/members/${ada}/disable`)).status, 403, 'an Admin cannot disable an Owner');
  t.equal((await m.as('ada', 'POST', `/org/members/${ada}/disable`)).status, 409, 'nobody disables themselves');
  t.equal((await m.as('bob', 'POST', `/org/members/${ada}/disable`)).status, 403);
  t.equal((await m.as('ada', 'POST', `/org/members/${newId()}/disable`)).status, 404);
});

// On PostgreSQL the invites' units run in concurrent transactions: all but one lose the race to create the account.
t.test('concurrent invites of one person: one account; the same organization answers CONFLICT, another one adds them, never 500', async (t) => {
  const m = await startManage(t);
  const invite = (who: 'ada' | 'gina') => m.as(who, 'POST', '/org/members', { email: 'race@example.test', name: 'Race', orgRole: 'member' });
  const answers = await Promise.all([invite('ada'), invite('ada'), invite('ada'), invite('gina'), invite('gina')]);
  const acme = answers.slice(0, 3).map((a) => a.status).sort();
  t.same(acme, [201, 409, 409], 'one invite per organization wins');
  t.ok(answers.slice(0, 3).filter((a) => a.status === 409).every((a) => a.json.error.code === 'CONFLICT'));
  t.notOk(answers.some((a) => a.json.error?.details?.reason === 'concurrent_write'), 'every loser ran again and answered as a sequential invite');
  t.same(answers.slice(3).map((a) => a.status).sort(), [201, 409], 'the other organization adds the same account once');
  t.equal(await m.c.count('SELECT COUNT(*) AS n FROM users WHERE email = ?', 'race@example.test'), 1, 'one account');
  const userIds = new Set(answers.filter((a) => a.status === 201).map((a) => a.json.member.userId));
  t.equal(userIds.size, 1, 'both organizations name the same person');
});
