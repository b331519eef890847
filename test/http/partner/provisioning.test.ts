// POST /organizations: the 202 outcome, onboarding, activation link, replay, key reuse, malformed requests refused before any claim.
import { request as httpRequest } from 'node:http';
import t, { type Test } from 'tap';
import { hashSecret } from '../../../runtime/auth/secrets.js';
import { call } from '../../helpers/http.js';
import { customerBody, startPartner, type PartnerEnv } from './partner-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

const tokenOf = (link: string): string => new URL(link).hash.replace(/^#token=/, '');

/** Nothing of a claim exists: no projection row, no claim actor, no organization beyond the manifest's. */
async function assertNoClaim(t: Test, p: PartnerEnv, orgsBefore: number): Promise<void> {
  t.equal(await p.count('provisioning_claims'), 0, 'no claim row');
  t.equal(await p.count('actor_snapshots', "machine = 'provisioning-claim'"), 0, 'no claim actor');
  t.equal(await p.count('organizations'), orgsBefore, 'no organization');
}

t.test('a first request answers 202 once the customer exists: organization, owner, domain, template automations, onboarding run, quota spent', async (t) => {
  const p = await startPartner(t);
  const orgsBefore = await p.count('organizations');
  const answer = await p.provision('order-1001', customerBody('globex', { domainName: 'Front desk', directLoginDisabled: false }));
  t.equal(answer.status, 202);
  t.equal(answer.headers.get('idempotency-replayed'), null, 'an original is not marked replayed');
  t.equal(answer.headers.get('cache-control'), 'no-store');
  const body = answer.json;
  t.match(body, {
    organization: { name: 'Customer globex', clientSegment: 'globex', directLoginDisabled: false },
    owner: { email: 'owner@globex.example', name: 'Olive Owner', invitation: /^http:\/\/127\.0\.0\.1:\d+\/console\/activate#token=svi_/ },
    domain: { name: 'Front desk' },
    onboardingStatus: 'completed',
    onboarding: { steps: [{ step: 'organization' }, { step: 'owner' }, { step: 'domain' }, { step: 'automations' }] },
    release: { template: { ref: 'starter', id: p.refs.starter }, digest: /^sha256:[0-9a-f]{64}$/ },
  });
  t.equal(answer.headers.get('location'), `/api/partner/v1/organizations/${body.organization.id}`);
  t.equal(await p.count('organizations'), orgsBefore + 1);

  const db = sqlReader(p.c.server.service);
  const org = (await db.get('SELECT * FROM organizations WHERE id = ?', body.organization.id)) as Record<string, unknown>;
  t.match(org, { partner_id: p.refs.northwind, client_segment: 'globex', direct_login_disabled: 0 });
  const owner = (await db.get('SELECT * FROM users WHERE id = ?', body.owner.userId)) as Record<string, unknown>;
  t.equal(owner.password_hash, null, 'the owner has no password until activation');
  t.equal((await db.value('SELECT role FROM org_memberships WHERE org_id = ? AND user_id = ?', body.organization.id, body.owner.userId)), 'owner');
  t.equal((await db.value('SELECT role FROM domain_memberships WHERE domain_id = ? AND user_id = ?', body.domain.id, body.owner.userId)), 'owner');

  const automations = (await db.all('SELECT name, kind, published_revision, entitled_by_default, domain_id FROM automations WHERE org_id = ? ORDER BY name', body.organization.id));
  t.same(
    automations.map((a: any) => [a.name, a.kind, a.published_revision, a.entitled_by_default, a.domain_id]),
    [
      ['Tier upgrader', 'agent', 1, 1, body.domain.id],
      ['Welcome agent', 'agent', 1, 1, body.domain.id],
    ],
    'the template agents exist, published, in the onboarding domain',
  );
  t.same(body.release.automations.map((a: any) => a.ref).sort(), ['approver-agent', 'welcome']);
  t.match((await db.get('SELECT status, template_id FROM onboarding_runs WHERE org_id = ?', body.organization.id)), { status: 'completed', template_id: p.refs.starter });
  t.equal((await db.value('SELECT quota_used FROM partners WHERE id = ?', p.refs.northwind)), 1, 'one unit of the durable allowance is spent');

  // The activation secret never reaches storage in clear: not in the claim, not in any row we can read.
  const secret = tokenOf(body.owner.invitation);
  const dump = JSON.stringify((await db.all('SELECT * FROM actor_snapshots'))) + JSON.stringify((await db.all('SELECT * FROM provisioning_claims')));
  t.notOk(dump.includes(secret), 'the invitation secret is not in the claim');
  t.notOk(p.c.server.logs.join('').includes(secret), 'nor in the logs');

  const status = await p.api('GET', `/organizations/${body.organization.id}`, p.refs['northwind-key']!);
  t.equal(status.status, 200);
  t.match(status.json, { organization: { id: body.organization.id, clientSegment: 'globex' }, onboardingStatus: 'completed', onboarding: { status: 'completed' } });
});

t.test('the invitation is a single-use activation link: it sets the owner\'s password and signs them in', async (t) => {
  const p = await startPartner(t);
  const answer = await p.provision('order-activate', customerBody('initech'));
  const token = tokenOf(answer.json.owner.invitation);
  const base = `${p.c.server.url}/api/v1`;
  const tooShort = await call(`${base}/console/activate`, { method: 'POST', json: { token, password: 'short' } });
  t.equal(tooShort.status, 400, 'password bounds are checked before the link is spent');
  const activated = await call(`${base}/console/activate`, { method: 'POST', json: { token, password: 'initech-owner-pw' } });
  t.equal(activated.status, 200);
  t.same(activated.json, { userId: answer.json.owner.userId, orgId: answer.json.organization.id, signedIn: true });
  const cookie = activated.headers.get('set-cookie') ?? '';
  t.match(cookie, /^service_session=svs_/);
  const issued = await call(`${base}/auth/token`, { method: 'POST', headers: { cookie: cookie.split(';')[0]! } });
  t.equal(issued.status, 200, 'the new session is a real console session');

  const again = await call(`${base}/console/activate`, { method: 'POST', json: { token, password: 'another-password' } });
  t.equal(again.status, 404, 'single use');
  const unknown = await call(`${base}/console/activate`, { method: 'POST', json: { token: 'svi_nope', password: 'another-password' } });
  t.equal(again.text, unknown.text, 'a used link and a made-up one answer the same bytes');
  const login = await call(`${base}/console/login`, { method: 'POST', json: { email: 'owner@initech.example', password: 'initech-owner-pw' } });
  t.equal(login.status, 200, 'the owner signs in with the password they chose');
});

t.test('an organization with direct login disabled: activation sets the password but opens no console session', async (t) => {
  const p = await startPartner(t);
  const answer = await p.provision('order-sso', customerBody('hooli', { directLoginDisabled: true }));
  t.equal(answer.json.organization.directLoginDisabled, true);
  const activated = await call(`${p.c.server.url}/api/v1/console/activate`, { method: 'POST', json: { token: tokenOf(answer.json.owner.invitation), password: 'hooli-owner-pw' } });
  t.equal(activated.status, 200);
  t.equal(activated.json.signedIn, false);
  t.equal(activated.headers.get('set-cookie'), null);
});

t.test('a byte-equivalent retry replays the stored outcome: 202, Idempotency-Replayed, invitation null, nothing new and no quota spent', async (t) => {
  const p = await startPartner(t);
  const original = await p.provision('order-replay', customerBody('umbrella'));
  t.equal(original.status, 202);
  const counts = async () => ({
    orgs: await p.count('organizations'),
    users: await p.count('users'),
    runs: await p.count('onboarding_runs'),
    invitations: await p.count('invitations'),
    automations: await p.count('automations'),
    quota: (await sqlReader(p.c.server.service).value('SELECT quota_used FROM partners WHERE id = ?', p.refs.northwind)),
  });
  const before = (await counts());
  // Same logical request, other key order and whitespace: byte-equivalent once canonicalized.
  const reordered = JSON.stringify({ ownerName: 'Olive Owner', ownerEmail: 'owner@umbrella.example', clientSegment: 'umbrella', clientName: 'Customer umbrella' }, null, 2);
  const replay = await call(`${p.c.server.url}/api/partner/v1/organizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.refs['northwind-key']}`, 'idempotency-key': 'order-replay', 'content-type': 'application/json; charset=utf-8' },
    body: reordered,
  });
  t.equal(replay.status, 202);
  t.equal(replay.headers.get('idempotency-replayed'), 'true');
  t.equal(replay.json.owner.invitation, null, 'the invitation is never stored, so a replay carries null');
  t.same({ ...replay.json, owner: { ...replay.json.owner, invitation: 'x' } }, { ...original.json, owner: { ...original.json.owner, invitation: 'x' } }, 'otherwise the original outcome');
  t.same((await counts()), before, 'no organization, follower record, onboarding run, invitation or quota spend');
});

t.test('the same key with a different validated body is 409 IDEMPOTENCY_KEY_REUSED; an added default-valued field is a different body', async (t) => {
  const p = await startPartner(t);
  t.equal((await p.provision('order-2002', customerBody('acme-two'))).status, 202);
  const other = await p.provision('order-2002', customerBody('acme-three'));
  t.equal(other.status, 409);
  t.equal(other.json.error.code, 'IDEMPOTENCY_KEY_REUSED');
  const withDefault = await p.provision('order-2002', customerBody('acme-two', { directLoginDisabled: false }));
  t.equal(withDefault.json.error.code, 'IDEMPOTENCY_KEY_REUSED', 'logical equality is over the JSON sent, not the defaults applied');
});

t.test('malformed headers and bodies are refused before any claim exists', async (t) => {
  const p = await startPartner(t);
  const orgs = await p.count('organizations');
  const good = customerBody('wonka');
  const cases: Array<[string, Promise<import('../../helpers/http.js').Answer>, number, string]> = [
    ['missing Idempotency-Key', p.provision(null, good), 400, 'VALIDATION'],
    ['comma-separated key', p.provision('a,b', good), 400, 'VALIDATION'],
    ['bad characters', p.provision('order 1', good), 400, 'VALIDATION'],
    ['129 characters', p.provision('k'.repeat(129), good), 400, 'VALIDATION'],
    ['unknown field', p.provision('order-x1', { ...good, plan: 'gold' }), 400, 'VALIDATION'],
    ['missing clientName', p.provision('order-x2', { ...good, clientName: undefined }), 400, 'VALIDATION'],
    ['ownerEmail not an email', p.provision('order-x3', { ...good, ownerEmail: 'nobody' }), 400, 'VALIDATION'],
    ['clientName too long', p.provision('order-x4', { ...good, clientName: 'n'.repeat(201) }), 400, 'VALIDATION'],
    ['directLoginDisabled not boolean', p.provision('order-x5', { ...good, directLoginDisabled: 'yes' }), 400, 'VALIDATION'],
  ];
  const raw = (contentType: string) =>
    call(`${p.c.server.url}/api/partner/v1/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.refs['northwind-key']}`, 'idempotency-key': 'order-x6', 'content-type': contentType },
      body: JSON.stringify(good),
    });
  cases.push(['text/plain', raw('text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE'], ['application/merge-patch+json', raw('application/merge-patch+json'), 415, 'UNSUPPORTED_MEDIA_TYPE']);
  for (const [name, pending, status, code] of cases) {
    const answer = await pending;
    t.equal(answer.status, status, name);
    t.equal(answer.json?.error?.code, code, name);
  }
  const notJson = await call(`${p.c.server.url}/api/partner/v1/organizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.refs['northwind-key']}`, 'idempotency-key': 'order-x7', 'content-type': 'application/json' },
    body: '{"clientName": ',
  });
  t.equal(notJson.status, 400, 'invalid JSON');
  const repeated = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(`${p.c.server.url}/api/partner/v1/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.refs['northwind-key']}`, 'content-type': 'application/json', 'idempotency-key': ['order-x8', 'order-x9'] },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify(good));
  });
  t.equal(repeated, 400, 'a repeated Idempotency-Key header');
  (await assertNoClaim(t, p, orgs));
});

t.test('a missing, malformed or revoked partner key is one uniform 401, and nothing is claimed', async (t) => {
  const p = await startPartner(t);
  const orgs = await p.count('organizations');
  const none = await p.provision('order-auth', customerBody('auth-co'), { secret: '' });
  const garbage = await p.provision('order-auth', customerBody('auth-co'), { secret: 'svp_not-a-key' });
  const personal = await p.provision('order-auth', customerBody('auth-co'), { secret: p.refs['ada-key']! });
  t.equal(none.status, 401);
  t.equal(none.json.error.code, 'UNAUTHORIZED');
  t.equal(garbage.text, none.text);
  t.equal(personal.text, none.text, 'a personal key is not a partner key');
  const second = p.refs['northwind-key-2']!;
  (await sqlReader(p.c.server.service).run('UPDATE partner_keys SET revoked_at = 1 WHERE key_hash = ?', hashSecret(second)));
  const revoked = await p.provision('order-auth', customerBody('auth-co'), { secret: second });
  t.equal(revoked.text, none.text, 'a revoked key');
  (await assertNoClaim(t, p, orgs));
});
