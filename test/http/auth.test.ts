// Credentials: console login cookie, POST /auth/token (cookie only), svu_ expiry, disabled users, uniform 404.
import t from 'tap';
import { mintSecret } from '../../runtime/auth/secrets.js';
import { seedUser } from '../helpers/fixtures.js';
import { bearer, call } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';

async function login(url: string, email: string, password: string) {
  const answer = await call(`${url}/api/v1/console/login`, { method: 'POST', json: { email, password } });
  const cookie = answer.headers.get('set-cookie') ?? '';
  return { answer, cookie: cookie.split(';')[0] };
}

t.test('console login sets an HttpOnly SameSite=Lax service_session cookie; wrong password is 401', async (t) => {
  const server = await startTestServer(t);
  const user = await seedUser(server.service.store);
  const { answer, cookie } = await login(server.url, user.email, user.password);
  t.equal(answer.status, 200);
  const setCookie = answer.headers.get('set-cookie') ?? '';
  t.match(setCookie, /^service_session=svs_/);
  t.match(setCookie, /HttpOnly/);
  t.match(setCookie, /SameSite=Lax/);
  t.notMatch(setCookie, /Secure/, 'plain HTTP without a trusted proxy: no Secure flag');
  t.ok(cookie);
  const wrong = await login(server.url, user.email, 'nope');
  t.equal(wrong.answer.status, 401);
  t.equal(wrong.answer.json.error.code, 'UNAUTHORIZED');
  const unknown = await login(server.url, 'nobody@example.test', 'nope');
  t.same(unknown.answer.json, wrong.answer.json, 'unknown email and wrong password look the same');
});

t.test('the cookie is Secure behind a trusted TLS proxy', async (t) => {
  const server = await startTestServer(t, { config: { trustProxy: true } });
  const user = await seedUser(server.service.store);
  const answer = await call(`${server.url}/api/v1/console/login`, {
    method: 'POST',
    headers: { 'x-forwarded-proto': 'https' },
    json: { email: user.email, password: user.password },
  });
  t.match(answer.headers.get('set-cookie') ?? '', /; Secure/);
});

t.test('POST /auth/token: cookie -> svu_ token valid one hour; no cookie or an sv_ key -> 401', async (t) => {
  const server = await startTestServer(t);
  const user = await seedUser(server.service.store);
  const { cookie } = await login(server.url, user.email, user.password);
  const issued = await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } });
  t.equal(issued.status, 200);
  t.match(issued.json.token, /^svu_[0-9A-Za-z]{38}$/);
  t.equal(Date.parse(issued.json.expiresAt) - server.clock.now(), 3_600_000);
  const none = await call(`${server.url}/api/v1/auth/token`, { method: 'POST' });
  t.equal(none.status, 401);
  t.equal(none.json.error.code, 'UNAUTHORIZED');
  const withKey = await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: bearer(user.apiKey) });
  t.equal(withKey.status, 401, 'a personal key is not accepted');
  const forged = await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie: `service_session=${mintSecret('svs_')}` } });
  t.equal(forged.status, 401);
});

t.test('an account-only console session (no organization selected) cannot mint a token', async (t) => {
  const server = await startTestServer(t);
  const first = await seedUser(server.service.store, { email: 'multi@example.test' });
  const other = await seedUser(server.service.store, { email: 'other@example.test' });
  await server.service.store.writer.submit(async (tx) => (await tx.repos.tenancy.setOrgRole(other.orgId, first.userId, 'member', 0)));
  const { answer, cookie } = await login(server.url, first.email, first.password);
  t.equal(answer.json.orgId, null, 'two organizations and none chosen');
  const token = await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } });
  t.equal(token.status, 401);
});

t.test('svu_ tokens expire after an hour by the injected clock, and are refused once the user is disabled', async (t) => {
  const server = await startTestServer(t);
  const user = await seedUser(server.service.store);
  const { cookie } = await login(server.url, user.email, user.password);
  const { token } = (await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } })).json;
  const auth = server.service.services.auth;
  t.ok(await auth.userToken(token), 'valid now');
  server.clock.advance(3_600_000 - 1);
  t.ok(await auth.userToken(token), 'valid until the hour is up');
  server.clock.advance(1);
  t.equal(await auth.userToken(token), null, 'expired at one hour');

  server.clock.advance(-3_600_000);
  const fresh = (await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } })).json.token;
  t.ok(await auth.userToken(fresh));
  await server.service.store.writer.submit(async (tx) => (await tx.repos.tenancy.setUserDisabled(user.userId, true)));
  t.equal(await auth.userToken(fresh), null, 'a disabled user is refused before expiry');
  const again = await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } });
  t.equal(again.status, 401, 'and cannot mint another');
  t.equal((await call(`${server.url}/api/v1/me`, { headers: bearer(user.apiKey) })).status, 404, 'their key stops working too');
});

t.test('key routes: missing, malformed, unknown and revoked keys give byte-identical 404 bodies', async (t) => {
  const server = await startTestServer(t);
  const user = await seedUser(server.service.store);
  const ok = await call(`${server.url}/api/v1/me`, { headers: bearer(user.apiKey) });
  t.equal(ok.status, 200);
  t.equal(ok.json.userId, user.userId);
  const tampered = user.apiKey.slice(0, -1) + (user.apiKey.endsWith('A') ? 'B' : 'A');
  const bodies = await Promise.all(
    [{}, bearer('garbage'), bearer(tampered), bearer(mintSecret('sv_')), bearer(mintSecret('svu_')), { authorization: `Basic ${user.apiKey}` }].map((headers) =>
      call(`${server.url}/api/v1/me`, { headers }),
    ),
  );
  for (const answer of bodies) t.equal(answer.status, 404);
  t.equal(new Set(bodies.map((b) => b.text)).size, 1, 'all bodies identical');
  t.equal(bodies[0].text, (await call(`${server.url}/api/v1/no-such-route`)).text, 'same as an unknown path');
});

t.test('logout deletes the console session', async (t) => {
  const server = await startTestServer(t);
  const user = await seedUser(server.service.store);
  const { cookie } = await login(server.url, user.email, user.password);
  const out = await call(`${server.url}/api/v1/console/logout`, { method: 'POST', headers: { cookie } });
  t.equal(out.status, 204);
  t.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
  t.equal((await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } })).status, 401);
});

t.test('secrets never reach the logs', async (t) => {
  const server = await startTestServer(t);
  const user = await seedUser(server.service.store);
  const { cookie } = await login(server.url, user.email, user.password);
  const { token } = (await call(`${server.url}/api/v1/auth/token`, { method: 'POST', headers: { cookie } })).json;
  await call(`${server.url}/api/v1/me?key=${user.apiKey}`, { headers: bearer(user.apiKey) });
  const all = server.logs.join('\n');
  t.ok(server.logs.length > 3, 'something was logged');
  for (const secret of [user.apiKey, user.password, token, cookie.split('=')[1]]) t.notOk(all.includes(secret), 'secret absent from logs');
});

t.test('an sv_ key authenticates only while unrevoked, its user enabled and still a member of the key\'s organization', async (t) => {
  const server = await startTestServer(t);
  const { store } = server.service;
  const auth = server.service.services.auth;
  const user = await seedUser(store);
  const other = await seedUser(store);
  t.match(await auth.apiKey(user.apiKey), { kind: 'user', via: 'api_key', userId: user.userId, orgId: user.orgId });
  // A membership in another organization does not keep a key of this one alive.
  await store.writer.submit(async (tx) => (await tx.repos.tenancy.setOrgRole(other.orgId, user.userId, 'member', 0)));
  await store.writer.submit(async (tx) => (await tx.repos.tenancy.removeOrgMember(user.orgId, user.userId)));
  t.equal(await auth.apiKey(user.apiKey), null, 'refused once the user leaves the organization');
  await store.writer.submit(async (tx) => (await tx.repos.tenancy.setOrgRole(user.orgId, user.userId, 'member', 0)));
  t.ok(await auth.apiKey(user.apiKey), 'accepted again as a member');
  await store.writer.submit(async (tx) => (await tx.repos.tenancy.setUserDisabled(user.userId, true)));
  t.equal(await auth.apiKey(user.apiKey), null, 'refused while the user is disabled');
  await store.writer.submit(async (tx) => (await tx.repos.tenancy.setUserDisabled(user.userId, false)));
  const [key] = await store.repos.credentials.apiKeysOfUser(user.userId, user.orgId);
  await store.writer.submit(async (tx) => (await tx.repos.credentials.revokeApiKey(key.id, 1)));
  t.equal(await auth.apiKey(user.apiKey), null, 'refused once revoked');
  t.equal((await auth.apiKey(other.apiKey))?.userId, other.userId, 'other keys are unaffected');
});
