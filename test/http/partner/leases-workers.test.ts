// Leases (/token, /worker-token: one hour by the injected clock) and worker mappings (vouch, list, revoke); neutral 404s.
import t from 'tap';
import { HOUR } from '../../../runtime/clock.js';
import { newId } from '../../../runtime/ids.js';
import { customerBody, startPartner, type PartnerEnv } from './partner-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

async function customer(p: PartnerEnv, segment: string, secret?: string) {
  const answer = await p.provision(`order-${segment}`, customerBody(segment), { secret });
  if (answer.status !== 202) throw new Error(`provisioning answered ${answer.status}: ${answer.text}`);
  return answer.json as { organization: { id: string }; domain: { id: string }; owner: { userId: string; email: string } };
}

const policyApprovers = async (p: PartnerEnv, domainId: string): Promise<string[]> =>
  JSON.parse((await sqlReader(p.c.server.service).value('SELECT approval_policy FROM domains WHERE id = ?', domainId)) as string).approvers;

t.test('POST /token mints a one-hour app lease; the injected clock ends it', async (t) => {
  const p = await startPartner(t);
  const { organization } = await customer(p, 'lease-co');
  const key = p.refs['northwind-key']!;
  const minted = await p.api('POST', '/token', key, { orgId: organization.id, appId: p.refs['northwind-app'] });
  t.equal(minted.status, 200);
  t.match(minted.json, { token: /^svt_/, kind: 'app', orgId: organization.id, appId: p.refs['northwind-app'] });
  t.equal(minted.json.expiresAt, new Date(p.clock.now() + HOUR).toISOString());
  t.equal(minted.headers.get('cache-control'), 'no-store');
  const db = sqlReader(p.c.server.service);
  t.notOk(JSON.stringify((await db.all('SELECT * FROM leases'))).includes(minted.json.token), 'only the hash is stored');

  const probe = () => p.api('GET', `/support-sessions/${newId()}`, minted.json.token);
  t.equal((await probe()).status, 404, 'a live lease authenticates (the grant is unknown)');
  p.clock.advance(HOUR - 1);
  t.equal((await probe()).status, 404, 'still live one millisecond before the hour');
  p.clock.advance(1);
  const expired = await probe();
  t.equal(expired.status, 401, 'expired at the hour');
  t.equal(expired.json.error.code, 'UNAUTHORIZED');
});

t.test('leases only for this platform\'s customers and apps: outside and unknown ids answer the same bytes', async (t) => {
  const p = await startPartner(t);
  const { organization } = await customer(p, 'mine');
  const south = await customer(p, 'theirs', p.refs['southwind-key']);
  const key = p.refs['northwind-key']!;
  const app = p.refs['northwind-app'];
  const unknown = await p.api('POST', '/token', key, { orgId: newId(), appId: app });
  t.equal(unknown.status, 404);
  const manifestOrg = await p.api('POST', '/token', key, { orgId: p.refs.acme, appId: app });
  const otherPlatform = await p.api('POST', '/token', key, { orgId: south.organization.id, appId: app });
  const notAnId = await p.api('POST', '/token', key, { orgId: 'acme', appId: app });
  const foreignApp = await p.api('POST', '/token', key, { orgId: organization.id, appId: p.refs['southwind-app'] });
  for (const [name, answer] of [['an organization outside any platform', manifestOrg], ['another platform\'s customer', otherPlatform], ['a malformed id', notAnId], ['another platform\'s app', foreignApp]] as const) {
    t.equal(answer.status, 404, name);
    t.equal(answer.text, unknown.text, `${name}: byte-identical to an unknown id`);
  }
  for (const path of [`/organizations/${south.organization.id}`, `/organizations/${south.organization.id}/workers`, `/organizations/${south.organization.id}/entitlements`]) {
    const foreign = await p.api('GET', path, key);
    const missing = await p.api('GET', path.replace(south.organization.id, newId()), key);
    t.equal(foreign.status, 404, path);
    t.equal(foreign.text, missing.text, `${path}: indistinguishable`);
  }
  const noKey = await p.api('POST', '/token', null, { orgId: organization.id, appId: app });
  t.equal(noKey.status, 401);
});

t.test('workers: vouch creates a provisioned person with domain roles; re-vouch updates; revoke withdraws them and ends their leases', async (t) => {
  const p = await startPartner(t);
  const { organization, domain } = await customer(p, 'staffed');
  const key = p.refs['northwind-key']!;
  const path = `/organizations/${organization.id}/workers`;
  const db = sqlReader(p.c.server.service);

  const vouched = await p.api('POST', path, key, { partnerSubject: 'emp-42', name: 'Wanda Worker', domainRoles: [{ domainId: domain.id, role: 'operator' }] });
  t.equal(vouched.status, 201);
  const worker = vouched.json.worker;
  t.match(worker, { partnerSubject: 'emp-42', name: 'Wanda Worker', domainRoles: [{ domainId: domain.id, role: 'operator', approver: false }] });
  t.equal((await db.value('SELECT role FROM domain_memberships WHERE domain_id = ? AND user_id = ?', domain.id, worker.userId)), 'operator');
  t.equal((await db.value('SELECT role FROM org_memberships WHERE org_id = ? AND user_id = ?', organization.id, worker.userId)), 'member');
  t.equal((await db.value('SELECT password_hash FROM users WHERE id = ?', worker.userId)), null, 'a provisioned person cannot sign in directly');

  const updated = await p.api('POST', path, key, { partnerSubject: 'emp-42', domainRoles: [{ domainId: domain.id, role: 'viewer', approver: true }] });
  t.equal(updated.status, 200, 're-vouching an active subject updates it');
  t.equal(updated.json.worker.mappingId, worker.mappingId);
  t.equal((await db.value('SELECT role FROM domain_memberships WHERE domain_id = ? AND user_id = ?', domain.id, worker.userId)), 'viewer');
  t.ok((await policyApprovers(p, domain.id)).includes(worker.userId), 'approver standing is the domain\'s approval policy');

  const listed = await p.api('GET', path, key);
  t.same(listed.json.workers.map((w: any) => w.partnerSubject), ['emp-42']);

  const lease = await p.api('POST', '/worker-token', key, { orgId: organization.id, appId: p.refs['northwind-app'], partnerSubject: 'emp-42' });
  t.equal(lease.status, 200);
  t.match(lease.json, { kind: 'worker', partnerSubject: 'emp-42', mappingId: worker.mappingId, userId: worker.userId });
  t.equal((await p.api('GET', '/worker/approvals', lease.json.token)).status, 200, 'the worker lease acts as the person');

  const revoked = await p.api('DELETE', `${path}/${worker.mappingId}`, key);
  t.equal(revoked.status, 204);
  t.equal((await p.api('GET', '/worker/approvals', lease.json.token)).status, 401, 'its lease stops at once');
  t.equal((await db.value('SELECT COUNT(*) FROM domain_memberships WHERE user_id = ?', worker.userId)), 0, 'memberships withdrawn');
  t.equal((await db.value('SELECT COUNT(*) FROM org_memberships WHERE user_id = ?', worker.userId)), 0);
  t.notOk((await policyApprovers(p, domain.id)).includes(worker.userId), 'approver standing withdrawn');
  t.same((await p.api('GET', path, key)).json.workers, []);
  t.equal((await p.api('DELETE', `${path}/${worker.mappingId}`, key)).status, 404, 'revoking twice is the neutral 404');
  const noLease = await p.api('POST', '/worker-token', key, { orgId: organization.id, appId: p.refs['northwind-app'], partnerSubject: 'emp-42' });
  t.equal(noLease.status, 404, 'a revoked subject gets no lease');

  const back = await p.api('POST', path, key, { partnerSubject: 'emp-42', domainRoles: [{ domainId: domain.id, role: 'operator' }] });
  t.equal(back.status, 201);
  t.equal(back.json.worker.userId, worker.userId, 'a re-vouched subject is the same person again');
  t.not(back.json.worker.mappingId, worker.mappingId);
});

// On PostgreSQL the vouches' units run in concurrent transactions: the losers of the subject's key re-vouch the winner.
t.test('concurrent vouches of one subject: one mapping and one person, the rest answer the re-vouch, never 500', async (t) => {
  const p = await startPartner(t);
  const { organization, domain } = await customer(p, 'racing');
  const key = p.refs['northwind-key']!;
  const path = `/organizations/${organization.id}/workers`;
  const body = { partnerSubject: 'emp-race', email: 'race@racing.example', domainRoles: [{ domainId: domain.id, role: 'operator' }] };
  const answers = await Promise.all(Array.from({ length: 5 }, () => p.api('POST', path, key, body)));
  t.same(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 201]);
  t.equal(new Set(answers.map((a) => a.json.worker.mappingId)).size, 1, 'every answer names the one mapping');
  t.equal(await p.count('worker_mappings', 'org_id = ? AND partner_subject = ?', organization.id, 'emp-race'), 1);
  t.equal(await p.count('users', 'email = ?', 'race@racing.example'), 1);
});

t.test('vouching checks domains and people: foreign domains are 400, outside accounts 409, existing members are linked and keep their membership', async (t) => {
  const p = await startPartner(t);
  const { organization, domain, owner } = await customer(p, 'linked');
  const key = p.refs['northwind-key']!;
  const path = `/organizations/${organization.id}/workers`;
  const foreignDomain = await p.api('POST', path, key, { partnerSubject: 'x-1', domainRoles: [{ domainId: p.refs.sales, role: 'operator' }] });
  t.equal(foreignDomain.status, 400);
  t.match(foreignDomain.json.error, { code: 'VALIDATION', details: { issues: [{ path: 'domainRoles.0.domainId' }] } });
  const badSubject = await p.api('POST', path, key, { partnerSubject: 'has space', domainRoles: [{ domainId: domain.id, role: 'operator' }] });
  t.equal(badSubject.status, 400);
  const outsider = await p.api('POST', path, key, { partnerSubject: 'x-2', email: 'ada@acme.test', domainRoles: [{ domainId: domain.id, role: 'operator' }] });
  t.equal(outsider.status, 409);
  t.equal(outsider.json.error.code, 'CONFLICT');

  const linked = await p.api('POST', path, key, { partnerSubject: 'owner-seat', email: owner.email, domainRoles: [{ domainId: domain.id, role: 'owner', approver: true }] });
  t.equal(linked.status, 201);
  t.equal(linked.json.worker.userId, owner.userId, 'the existing member is the person');
  await p.api('DELETE', `${path}/${linked.json.worker.mappingId}`, key);
  const db = sqlReader(p.c.server.service);
  t.equal((await db.value('SELECT role FROM org_memberships WHERE org_id = ? AND user_id = ?', organization.id, owner.userId)), 'owner', 'a linked member keeps their membership');
  t.equal((await db.value('SELECT role FROM domain_memberships WHERE domain_id = ? AND user_id = ?', domain.id, owner.userId)), 'owner');
  t.ok((await policyApprovers(p, domain.id)).includes(owner.userId), 'and the approver standing they had before');
});
