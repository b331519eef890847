// Provisioning claims: concurrency, release on a named refusal, indeterminate after an unknown failure, 7-day expiry and sweep, key scope.
import t from 'tap';
import { hashSecret } from '../../../runtime/auth/secrets.js';
import { DAY } from '../../../runtime/clock.js';
import { PROVISIONING_LEASE_MS } from '../../../runtime/partners/provisioning-claims.js';
import { provisioningFingerprint } from '../../../runtime/partners/provisioning-request.js';
import { customerBody, startPartner, type PartnerEnv } from './partner-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

const claimState = async (p: PartnerEnv, key: string) =>
  (await sqlReader(p.c.server.service).value('SELECT state FROM provisioning_claims WHERE key = ?', key)) as string | undefined;
const quotaUsed = async (p: PartnerEnv) => (await sqlReader(p.c.server.service).value('SELECT quota_used FROM partners WHERE id = ?', p.refs.northwind));

t.test('concurrent duplicate requests create one organization: one original, the rest wait (409 in progress) or replay', async (t) => {
  const p = await startPartner(t);
  const orgs = await p.count('organizations');
  const answers = await Promise.all(Array.from({ length: 6 }, () => p.provision('order-race', customerBody('racer'))));
  t.equal(await p.count('organizations'), orgs + 1, 'exactly one organization');
  t.equal((await quotaUsed(p)), 1, 'one unit of quota');
  const originals = answers.filter((a) => a.status === 202 && a.headers.get('idempotency-replayed') === null);
  t.equal(originals.length, 1, 'one original answer');
  t.match(originals[0]!.json.owner.invitation, /#token=svi_/);
  for (const other of answers.filter((a) => a !== originals[0])) {
    if (other.status === 409) {
      t.equal(other.json.error.code, 'IDEMPOTENCY_IN_PROGRESS');
      t.equal(other.headers.get('retry-after'), '2');
    } else {
      t.equal(other.status, 202);
      t.equal(other.headers.get('idempotency-replayed'), 'true');
      t.equal(other.json.owner.invitation, null);
    }
  }
  const later = await p.provision('order-race', customerBody('racer'));
  t.equal(later.headers.get('idempotency-replayed'), 'true');
  t.equal(later.json.organization.id, originals[0]!.json.organization.id);
});

t.test('CLIENT_SEGMENT_INVALID is a named refusal that releases the key: the corrected body succeeds under it', async (t) => {
  const p = await startPartner(t);
  const orgs = await p.count('organizations');
  for (const [segment, rule] of [
    ['Bad Segment', 'characters'],
    ['-edge', 'characters'],
    ['double--hyphen', 'characters'],
    ['a', 'length'],
    ['x'.repeat(64), 'length'],
    ['admin', 'reserved'],
  ] as const) {
    const refused = await p.provision('order-seg', customerBody(segment, { ownerEmail: 'owner@seg.example' }));
    t.equal(refused.status, 400, segment);
    t.match(refused.json.error, { code: 'CLIENT_SEGMENT_INVALID', details: { rule, idempotencyKey: 'released' } }, segment);
    if (segment.length > 4) t.notOk(refused.text.includes(segment), 'the message does not echo the segment');
    t.equal((await claimState(p, 'order-seg')), 'released');
  }
  t.equal(await p.count('organizations'), orgs, 'nothing was created');
  t.equal((await quotaUsed(p)), 0, 'no quota spent');
  const corrected = await p.provision('order-seg', customerBody('good-seg', { ownerEmail: 'owner@seg.example' }));
  t.equal(corrected.status, 202, 'not IDEMPOTENCY_KEY_REUSED: the key was released');
  t.equal(corrected.json.organization.clientSegment, 'good-seg');
  t.equal((await claimState(p, 'order-seg')), 'completed');
});

t.test('a failure injected after the organization exists leaves the claim indeterminate: later requests get IDEMPOTENCY_OUTCOME_UNKNOWN', async (t) => {
  const p = await startPartner(t);
  const hooks = p.c.server.service.services.partners.provisioning.hooks;
  hooks.afterOrganizationCreated = () => {
    throw new Error('injected: the process lost track after the organization was created');
  };
  const original = await p.provision('order-crash', customerBody('crashy'));
  hooks.afterOrganizationCreated = undefined;
  t.equal(original.status, 500);
  t.equal(original.json.error.code, 'PROVISIONING_FAILED');
  const orgId = original.json.error.details.organization.id;
  t.match(original.json.error.details, { organization: { clientSegment: 'crashy' }, onboardingStatus: 'failed' });
  t.notOk(original.text.includes('injected'), 'the cause is not returned');
  t.equal((await claimState(p, 'order-crash')), 'indeterminate');

  const retry = await p.provision('order-crash', customerBody('crashy'));
  t.equal(retry.status, 409);
  t.equal(retry.json.error.code, 'IDEMPOTENCY_OUTCOME_UNKNOWN');
  const otherBody = await p.provision('order-crash', customerBody('crashy-two'));
  t.equal(otherBody.json.error.code, 'IDEMPOTENCY_OUTCOME_UNKNOWN', 'whatever the body: do not retry blindly');
  t.equal(await p.count('organizations', 'client_segment = ?', 'crashy'), 1, 'the organization that was created stays, once');
  t.equal(await p.count('organizations', 'client_segment = ?', 'crashy-two'), 0);

  // Reconcile: the partner can read what exists.
  const status = await p.api('GET', `/organizations/${orgId}`, p.refs['northwind-key']!);
  t.match(status.json, { onboardingStatus: 'failed', onboarding: { status: 'failed', error: 'onboarding_interrupted', steps: [{ step: 'organization' }, { step: 'owner' }] } });

  // After 7 days the key runs fresh: the same body now meets its own customer (details.existing).
  p.clock.advance(7 * DAY);
  await p.drainTimers();
  const fresh = await p.provision('order-crash', customerBody('crashy'));
  t.equal(fresh.status, 409);
  t.match(fresh.json.error, { code: 'IDENTIFIER_TAKEN', details: { existing: { organizationId: orgId, clientSegment: 'crashy' } } });
});

t.test('a claim whose owner died mid-flight turns indeterminate when its lease runs out; a settled claim is unaffected', async (t) => {
  const p = await startPartner(t);
  const done = await p.provision('order-settled', customerBody('settled'));
  t.equal(done.status, 202);
  const claims = p.c.server.service.services.partners.provisioning.claims;
  const keyId = (await sqlReader(p.c.server.service).value('SELECT id FROM partner_keys WHERE key_hash = ?', hashSecret(p.refs['northwind-key']!))) as string;
  const body = customerBody('orphan');
  // A request that took the claim and then vanished (a crashed process): nothing will settle it.
  const taken = await claims.acquire({ partnerKeyId: keyId, key: 'order-orphan' }, provisioningFingerprint(body), 'dead-owner');
  t.equal(taken.kind, 'claimed');
  const meanwhile = await p.provision('order-orphan', body);
  t.equal(meanwhile.json.error.code, 'IDEMPOTENCY_IN_PROGRESS');
  p.clock.advance(PROVISIONING_LEASE_MS);
  await p.drainTimers();
  t.equal((await claimState(p, 'order-orphan')), 'indeterminate');
  const after = await p.provision('order-orphan', body);
  t.equal(after.json.error.code, 'IDEMPOTENCY_OUTCOME_UNKNOWN');
  const replay = await p.provision('order-settled', customerBody('settled'));
  t.equal(replay.headers.get('idempotency-replayed'), 'true', 'the lease timer of a completed claim was cancelled');
});

t.test('an owner that dies after creating the customer: its lease fails the onboarding run, which would otherwise stay running', async (t) => {
  const p = await startPartner(t);
  const hooks = p.c.server.service.services.partners.provisioning.hooks;
  // The owner stops right after the customer record committed, as a killed process would (it never comes back in time).
  let reached!: () => void;
  const atOrganization = new Promise<void>((resolve) => (reached = resolve));
  let wake!: () => void;
  hooks.afterOrganizationCreated = () => {
    reached();
    return new Promise<void>((resolve) => (wake = resolve));
  };
  const original = p.provision('order-stalled', customerBody('stalled'));
  await atOrganization;
  const orgId = (await sqlReader(p.c.server.service).value('SELECT org_id FROM provisioning_claims WHERE key = ?', 'order-stalled')) as string;
  const before = await p.api('GET', `/organizations/${orgId}`, p.refs['northwind-key']!);
  t.equal(before.json.onboardingStatus, 'running');

  p.clock.advance(PROVISIONING_LEASE_MS);
  await p.drainTimers();
  t.equal((await claimState(p, 'order-stalled')), 'indeterminate');
  const after = await p.api('GET', `/organizations/${orgId}`, p.refs['northwind-key']!);
  t.match(after.json, { onboardingStatus: 'failed', onboarding: { status: 'failed', error: 'onboarding_interrupted' } }, 'the partner is told to reconcile, not to wait');

  // Not dead after all, only late: it finishes onboarding, but the claim stays indeterminate (no replay of a lost owner).
  hooks.afterOrganizationCreated = undefined;
  wake();
  const late = await original;
  t.equal(late.json.error.code, 'PROVISIONING_FAILED');
  t.equal((await claimState(p, 'order-stalled')), 'indeterminate');
  t.equal((await p.provision('order-stalled', customerBody('stalled'))).json.error.code, 'IDEMPOTENCY_OUTCOME_UNKNOWN');
});

t.test('7 days after creation a claim expires: timers sweep the rows and the next request with the key runs fresh', async (t) => {
  const p = await startPartner(t);
  const first = await p.provision('order-week', customerBody('weekly'));
  t.equal(first.status, 202);
  const refused = await p.provision('order-unretried', customerBody('Not Valid', { ownerEmail: 'owner@unretried.example' }));
  t.equal(refused.json.error.code, 'CLIENT_SEGMENT_INVALID');
  t.equal(await p.count('provisioning_claims'), 2);
  t.equal(await p.count('actor_snapshots', "machine = 'provisioning-claim'"), 2);

  p.clock.advance(7 * DAY - 1);
  await p.drainTimers();
  const stillReplayed = await p.provision('order-week', customerBody('weekly'));
  t.equal(stillReplayed.headers.get('idempotency-replayed'), 'true', 'one millisecond before the window ends it still replays');

  p.clock.advance(1);
  await p.drainTimers();
  t.equal(await p.count('provisioning_claims'), 0, 'the completed and the unretried released claims are swept');
  t.equal(await p.count('actor_snapshots', "machine = 'provisioning-claim'"), 0, 'so are their actor rows');

  const rerun = await p.provision('order-week', customerBody('weekly'));
  t.equal(rerun.status, 409, 'a fresh run, not a replay');
  t.equal(rerun.headers.get('idempotency-replayed'), null);
  t.match(rerun.json.error, { code: 'IDENTIFIER_TAKEN', details: { existing: { organizationId: first.json.organization.id } } });
  const other = await p.provision('order-week', customerBody('weekly-two'));
  t.equal(other.status, 202, 'the released key takes a different body: no IDEMPOTENCY_KEY_REUSED after expiry');
  t.not(other.json.organization.id, first.json.organization.id);
  t.equal((await quotaUsed(p)), 2);
});

t.test('the same key text under two partner keys is two independent claims', async (t) => {
  const p = await startPartner(t);
  const one = await p.provision('shared-key', customerBody('tenant-one'));
  const two = await p.provision('shared-key', customerBody('tenant-two'), { secret: p.refs['northwind-key-2'] });
  t.equal(one.status, 202);
  t.equal(two.status, 202, 'not IDEMPOTENCY_KEY_REUSED: another key, another claim');
  t.not(one.json.organization.id, two.json.organization.id);
  const replayOne = await p.provision('shared-key', customerBody('tenant-one'));
  const replayTwo = await p.provision('shared-key', customerBody('tenant-two'), { secret: p.refs['northwind-key-2'] });
  t.equal(replayOne.json.organization.id, one.json.organization.id);
  t.equal(replayTwo.json.organization.id, two.json.organization.id);
  t.equal(await p.count('provisioning_claims', 'key = ?', 'shared-key'), 2);
});
