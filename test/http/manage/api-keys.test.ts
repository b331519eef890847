// API key routes: create (secret once), list own with last use, revoke (stops at once); organization admins see and revoke all.
import t from 'tap';
import { ACTIVE_KEYS_PER_USER } from '../../../runtime/manage/api-keys.service.js';
import { allPages, startManageServer, UNKNOWN } from './manage-fixture.js';

t.test('create: the secret once, working at once; the list shows hint and last use to the minute, never the secret', async (t) => {
  const f = await startManageServer(t);
  const writer = f.server.service.store.writer;
  const created = await f.req('POST', '/api/v1/api-keys', { user: 'bob' }, { name: '  deploy script ' });
  t.equal(created.status, 201);
  t.equal(created.headers.get('cache-control'), 'no-store');
  const { apiKey, secret } = created.json;
  t.match(secret, /^sv_[0-9A-Za-z]{38}$/);
  t.match(apiKey, { name: 'deploy script', hint: `sv_…${secret.slice(-4)}`, userId: f.refs.bob, lastUsedAt: null, revokedAt: null });
  t.notOk(f.server.logs.join('').includes(secret), 'the secret is never logged');

  const listed = await f.req('GET', '/api/v1/api-keys', { user: 'bob' });
  t.same(listed.json.apiKeys.map((k: any) => k.name), ['bob-key', 'deploy script'], 'own keys only, oldest first');
  t.notOk(listed.text.includes(secret.slice(3, 20)), 'no secret in the list');

  const used = await f.req('GET', '/api/v1/triggers', { key: secret });
  t.equal(used.status, 200, 'the new key works at once');
  await writer.submit(() => undefined);
  const firstUse = f.clock.now();
  const after = (await f.req('GET', '/api/v1/api-keys', { key: secret })).json.apiKeys.find((k: any) => k.id === apiKey.id);
  t.equal(after.lastUsedAt, new Date(firstUse).toISOString(), 'last use recorded');

  f.clock.advance(30_000);
  await f.req('GET', '/api/v1/triggers', { key: secret });
  await writer.submit(() => undefined);
  const row = async () => (await f.server.service.store.repos.credentials.apiKey(apiKey.id))!;
  t.equal((await row()).lastUsedAt, firstUse, 'not rewritten within the minute');
  f.clock.advance(31_000);
  await f.req('GET', '/api/v1/triggers', { key: secret });
  await writer.submit(() => undefined);
  t.equal((await row()).lastUsedAt, f.clock.now(), 'rewritten once the minute passed');

  const viaKey = await f.req('POST', '/api/v1/api-keys', { key: f.key('ada-key') }, { name: 'rotation' });
  t.equal(viaKey.status, 201, 'an sv_ key may mint its owner another key');
  t.equal(viaKey.json.apiKey.userId, f.refs.ada);

  for (const body of [{}, { name: '' }, { name: 'x'.repeat(121) }, { name: 'ok', scopes: ['all'] }, { name: 7 }]) {
    const bad = await f.req('POST', '/api/v1/api-keys', { user: 'bob' }, body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.equal(bad.json.error.code, 'VALIDATION');
  }
  const token = await f.req('POST', '/api/v1/auth/token', { user: 'ed' });
  t.equal(token.status, 200);
  const viaToken = await f.req('POST', '/api/v1/api-keys', { key: token.json.token }, { name: 'from a token' });
  t.equal(viaToken.status, 201, 'an svu_ token works too');
  t.equal(viaToken.json.apiKey.userId, f.refs.ed);
  t.equal((await f.req('GET', '/api/v1/api-keys', { key: 'svu_garbage' })).status, 404, 'a bad token is the uniform 404');
  t.equal((await f.req('POST', '/api/v1/api-keys', {}, { name: 'x' })).status, 404, 'no credential');
  t.equal((await f.req('POST', '/api/v1/api-keys', { key: 'sv_garbage' }, { name: 'x' })).status, 404, 'a bad key');
});

t.test('revoke: own key stops on the very next request; others\' keys 403 for members, 404 across organizations; idempotent', async (t) => {
  const f = await startManageServer(t);
  const created = (await f.req('POST', '/api/v1/api-keys', { user: 'bob' }, { name: 'temp' })).json;
  t.equal((await f.req('GET', '/api/v1/triggers', { key: created.secret })).status, 200);
  const revoked = await f.req('DELETE', `/api/v1/api-keys/${created.apiKey.id}`, { key: created.secret });
  t.equal(revoked.status, 204, 'a key may revoke itself');
  t.equal((await f.req('GET', '/api/v1/triggers', { key: created.secret })).status, 404, 'refused at once');
  t.equal((await f.req('DELETE', `/api/v1/api-keys/${created.apiKey.id}`, { user: 'bob' })).status, 204, 'idempotent');
  const listed = (await f.req('GET', '/api/v1/api-keys', { user: 'bob' })).json.apiKeys.find((k: any) => k.id === created.apiKey.id);
  t.type(listed.revokedAt, 'string', 'listed as revoked');

  const adaKeyId = (await f.server.service.store.repos.credentials.apiKeysOfUser(f.refs.ada!, (await f.server.service.store.repos.tenancy.domain(f.refs.sales!))!.orgId))[0]!.id;
  const byMember = await f.req('DELETE', `/api/v1/api-keys/${adaKeyId}`, { user: 'bob' });
  t.equal(byMember.status, 403);
  t.equal(byMember.json.error.code, 'FORBIDDEN');
  const foreign = await f.req('DELETE', `/api/v1/api-keys/${adaKeyId}`, { user: 'gina' });
  const unknown = await f.req('DELETE', `/api/v1/api-keys/${UNKNOWN}`, { user: 'gina' });
  const garbage = await f.req('DELETE', '/api/v1/api-keys/sv_abc', { user: 'gina' });
  for (const answer of [foreign, unknown, garbage]) {
    t.equal(answer.status, 404);
    t.equal(answer.text, unknown.text, 'uniform 404');
  }
  t.equal((await f.req('GET', '/api/v1/triggers', { key: f.key('ada-key') })).status, 200, 'ada\'s key untouched');
});

t.test('organization admins list every key (paged, by member) and revoke any; members may not list them', async (t) => {
  const f = await startManageServer(t);
  for (let i = 0; i < 3; i++) await f.req('POST', '/api/v1/api-keys', { user: 'ed' }, { name: `ed-${i}` });
  const all = await allPages((cursor) => f.req('GET', `/api/v1/organization/api-keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { user: 'eve' }), 'apiKeys');
  const names = all.items.map((k) => k.name);
  for (const name of ['ada-key', 'bob-key', 'eve-key', 'vic-key', 'ed-0', 'ed-2']) t.ok(names.includes(name), name);
  t.notOk(names.includes('gina-key'), 'never another organization\'s keys');
  t.equal(new Set(all.items.map((k) => k.id)).size, all.items.length, 'no key on two pages');

  const eds = await f.req('GET', `/api/v1/organization/api-keys?userId=${f.refs.ed}`, { user: 'ada' });
  t.same(eds.json.apiKeys.map((k: any) => k.name), ['ed-0', 'ed-1', 'ed-2'], 'one member\'s keys (owner)');
  t.equal((await f.req('GET', '/api/v1/organization/api-keys', { key: f.key('bob-key') })).status, 403, 'a member');
  t.equal((await f.req('GET', '/api/v1/organization/api-keys?userId=ed', { user: 'eve' })).status, 400, 'strict query');

  const bobKeyId = all.items.find((k) => k.name === 'bob-key')!.id;
  t.equal((await f.req('DELETE', `/api/v1/api-keys/${bobKeyId}`, { user: 'eve' })).status, 204, 'an admin revokes a member\'s key');
  t.equal((await f.req('GET', '/api/v1/triggers', { key: f.key('bob-key') })).status, 404, 'and it stops at once');
});

t.test(`at most ${ACTIVE_KEYS_PER_USER} active keys per person: 409 until one is revoked`, async (t) => {
  const f = await startManageServer(t);
  let last: any;
  for (let i = 1; i < ACTIVE_KEYS_PER_USER; i++) last = await f.req('POST', '/api/v1/api-keys', { user: 'vic' }, { name: `k${i}` });
  t.equal(last.status, 201);
  const refused = await f.req('POST', '/api/v1/api-keys', { user: 'vic' }, { name: 'one too many' });
  t.equal(refused.status, 409);
  t.equal(refused.json.error.details.reason, 'too_many_keys');
  await f.req('DELETE', `/api/v1/api-keys/${last.json.apiKey.id}`, { user: 'vic' });
  t.equal((await f.req('POST', '/api/v1/api-keys', { user: 'vic' }, { name: 'replacement' })).status, 201);
});

t.test('concurrent creates near the cap: exactly enough succeed to reach it, the rest 409 too_many_keys', async (t) => {
  const f = await startManageServer(t);
  const create = (name: string) => f.req('POST', '/api/v1/api-keys', { user: 'vic' }, { name });
  // vic holds one key from the workspace: three below the cap after these.
  for (let i = 1; i < ACTIVE_KEYS_PER_USER - 3; i++) t.equal((await create(`k${i}`)).status, 201);
  const racing = await Promise.all(Array.from({ length: 6 }, (_, i) => create(`race-${i}`)));
  t.same(racing.map((a) => a.status).sort(), [201, 201, 201, 409, 409, 409]);
  t.ok(racing.filter((a) => a.status === 409).every((a) => a.json.error.details.reason === 'too_many_keys'));
});
