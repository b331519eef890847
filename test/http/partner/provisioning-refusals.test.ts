// The closed provisioning refusals: standing, grant, template, quota (a durable allowance), identifiers; each releases the key.
import t from 'tap';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import { customerBody, partnerWorkspace, startPartner, type PartnerEnv } from './partner-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

/** Re-applies the workspace with `change` made to the northwind partner (standing, grant, quota, template). */
async function reconfigure(p: PartnerEnv, change: (northwind: any) => void): Promise<void> {
  const manifest = partnerWorkspace(p.c.upstream.baseUrl);
  change(manifest.partners[0]);
  await applyManifest(p.c.server.service.store, manifest, { clock: p.clock, keyRing: p.c.server.service.services.keyRing });
}

const quotaUsed = async (p: PartnerEnv) => (await sqlReader(p.c.server.service).value('SELECT quota_used FROM partners WHERE id = ?', p.refs.northwind));

t.test('quota is a durable allowance: the 4th customer of a quota of 3 is QUOTA_EXHAUSTED, replays still work, raising it lets the key through', async (t) => {
  const p = await startPartner(t);
  for (const n of [1, 2, 3]) t.equal((await p.provision(`order-q${n}`, customerBody(`quota-${n}`))).status, 202);
  t.equal((await quotaUsed(p)), 3);
  const fourth = await p.provision('order-q4', customerBody('quota-4'));
  t.equal(fourth.status, 409);
  t.match(fourth.json.error, { code: 'QUOTA_EXHAUSTED', details: { quota: 3, idempotencyKey: 'released' } });
  t.equal(fourth.headers.get('retry-after'), null, 'not a rate limit: nothing to wait for');
  t.equal(await p.count('organizations', 'client_segment = ?', 'quota-4'), 0);
  const replay = await p.provision('order-q2', customerBody('quota-2'));
  t.equal(replay.headers.get('idempotency-replayed'), 'true', 'a replay spends nothing, so it still answers');
  // Re-applying the manifest keeps the spend: it is durable, never reset by configuration.
  await reconfigure(p, () => {});
  t.equal((await quotaUsed(p)), 3);
  t.equal((await p.provision('order-q4', customerBody('quota-4'))).json.error.code, 'QUOTA_EXHAUSTED');
  await reconfigure(p, (northwind) => (northwind.provisioning.quota = 4));
  const raised = await p.provision('order-q4', customerBody('quota-4'));
  t.equal(raised.status, 202, 'the released key succeeds once the allowance is raised');
  t.equal((await quotaUsed(p)), 4);
});

t.test('standing refusals: PARTNER_PLATFORM_SUSPENDED, PROVISIONING_NOT_ENABLED, TEMPLATE_SUSPENDED release the key', async (t) => {
  const p = await startPartner(t);
  const body = customerBody('standing');
  await reconfigure(p, (northwind) => (northwind.suspended = true));
  const suspended = await p.provision('order-standing', body);
  t.equal(suspended.status, 403);
  t.equal(suspended.json.error.code, 'PARTNER_PLATFORM_SUSPENDED');

  await reconfigure(p, (northwind) => (northwind.provisioning.enabled = false));
  const notEnabled = await p.provision('order-standing', body);
  t.equal(notEnabled.status, 403);
  t.equal(notEnabled.json.error.code, 'PROVISIONING_NOT_ENABLED');

  (await sqlReader(p.c.server.service).run('UPDATE partner_keys SET provisioning_enabled = false WHERE partner_id = ?', p.refs.northwind));
  await reconfigure(p, () => {});
  t.equal((await p.provision('order-standing', body)).json.error.code, 'PROVISIONING_NOT_ENABLED', 'a key without the grant');
  (await sqlReader(p.c.server.service).run('UPDATE partner_keys SET provisioning_enabled = true WHERE partner_id = ?', p.refs.northwind));

  await reconfigure(p, (northwind) => (northwind.templates[0].suspended = true));
  const template = await p.provision('order-standing', body);
  t.equal(template.status, 409);
  t.equal(template.json.error.code, 'TEMPLATE_SUSPENDED');

  t.equal(await p.count('organizations', 'client_segment = ?', 'standing'), 0);
  t.equal((await quotaUsed(p)), 0);
  await reconfigure(p, () => {});
  t.equal((await p.provision('order-standing', body)).status, 202, 'standing restored: the same key runs');
});

t.test('IDENTIFIER_TAKEN names the caller\'s own customer in details.existing, never another platform\'s, and guards owner emails', async (t) => {
  const p = await startPartner(t);
  const own = await p.provision('order-id-1', customerBody('taken'));
  const again = await p.provision('order-id-2', customerBody('taken', { ownerEmail: 'second@taken.example' }));
  t.equal(again.status, 409);
  t.match(again.json.error, { code: 'IDENTIFIER_TAKEN', details: { field: 'clientSegment', existing: { organizationId: own.json.organization.id, clientSegment: 'taken' } } });

  const foreign = await p.provision('order-id-3', customerBody('taken', { ownerEmail: 'third@taken.example' }), { secret: p.refs['southwind-key'] });
  t.equal(foreign.json.error.code, 'IDENTIFIER_TAKEN');
  t.equal(foreign.json.error.details.existing, undefined, 'another platform\'s customer stays invisible');

  const email = await p.provision('order-id-4', customerBody('fresh-seg', { ownerEmail: 'ada@acme.test' }));
  t.match(email.json.error, { code: 'IDENTIFIER_TAKEN', details: { field: 'ownerEmail' } });
  t.equal(email.json.error.details.existing, undefined);
  t.equal(await p.count('org_memberships', 'user_id = ?', p.refs.ada), 1, 'an existing account is never attached to a new customer');
  const corrected = await p.provision('order-id-4', customerBody('fresh-seg'));
  t.equal(corrected.status, 202, 'released: the corrected request reuses the key');
});

// On PostgreSQL the two customers' units run in concurrent transactions: the loser of the segment's key runs again.
t.test('two keys racing for one clientSegment: one customer, the other IDENTIFIER_TAKEN (not PROVISIONING_FAILED)', async (t) => {
  const p = await startPartner(t);
  const answers = await Promise.all([
    p.provision('order-race-1', customerBody('racing', { ownerEmail: 'one@racing.example' })),
    p.provision('order-race-2', customerBody('racing', { ownerEmail: 'two@racing.example' })),
  ]);
  t.same(answers.map((a) => a.status).sort(), [202, 409]);
  t.match(answers.find((a) => a.status === 409)!.json.error, { code: 'IDENTIFIER_TAKEN', details: { field: 'clientSegment' } });
  t.equal(await p.count('organizations', 'client_segment = ?', 'racing'), 1);
  t.equal(await quotaUsed(p), 1, 'the loser spent no allowance');
});
