// Behaviour of the provisioning claim with a simulated clock: completion, release on named refusal, indeterminate, 7-day expiry, persistence.
import t from 'tap';
import { createActor, type SnapshotFrom } from 'xstate';
import {
  PROVISIONING_CLAIM_WINDOW_MS,
  provisioningClaimMachine,
  provisioningRequestVerdict,
  type ProvisioningClaimEmitted,
} from '../../machines/provisioning-claim.machine.js';

type Snapshot = SnapshotFrom<typeof provisioningClaimMachine>;

const T0 = Date.UTC(2025, 0, 1);
const LEASE = 60_000;
const DAY = 24 * 60 * 60 * 1000;
const WEEK = 7 * DAY;
const response = { status: 201, body: { onboardingStatus: 'ready', owner: { invitation: null } } };

function start(snapshot?: Snapshot) {
  const input = { key: 'svp-1:acme' };
  const actor = createActor(provisioningClaimMachine, snapshot ? { snapshot, input } : { input });
  const emitted: ProvisioningClaimEmitted[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  return { actor, emitted };
}

function claimed(now = T0, fingerprint = 'fp-1') {
  const claim = start();
  claim.actor.send({ type: 'CLAIM', now, fingerprint, owner: 'req-1', leaseMs: LEASE });
  return claim;
}

t.test('the claim lives 7 days from its creation', async (t) => {
  t.equal(PROVISIONING_CLAIM_WINDOW_MS, WEEK);
  const { actor, emitted } = claimed();
  t.match(actor.getSnapshot().context, { createdAt: T0, expiresAt: T0 + WEEK, leaseExpiresAt: T0 + LEASE });
  t.same(emitted, [{ type: 'claim.scheduled', key: 'svp-1:acme', leaseExpiresAt: T0 + LEASE, expiresAt: T0 + WEEK }]);
});

t.test('the original completes; repeats replay, different requests are a reused key', async (t) => {
  const { actor } = claimed();
  t.same(provisioningRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-1', now: T0 + 10 }), { kind: 'in-progress' });
  actor.send({ type: 'COMPLETE', now: T0 + 10, owner: 'req-2', response });
  t.equal(actor.getSnapshot().value, 'inProgress', 'another owner cannot complete it');
  actor.send({ type: 'COMPLETE', now: T0 + 10, owner: 'req-1', response });
  t.equal(actor.getSnapshot().value, 'completed');
  t.same(provisioningRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-1', now: T0 + DAY }), { kind: 'replay', response });
  t.same(provisioningRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-2', now: T0 + DAY }), { kind: 'key-reused' });
});

t.test('a named refusal before organization creation releases the key for a corrected request', async (t) => {
  const { actor } = claimed();
  actor.send({ type: 'REFUSE', now: T0 + 5, owner: 'req-1', code: 'CLIENT_SEGMENT_INVALID' });
  t.equal(actor.getSnapshot().value, 'released');
  t.match(actor.getSnapshot().context, { refusalCode: 'CLIENT_SEGMENT_INVALID', settledAt: T0 + 5 });
  t.same(provisioningRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-corrected', now: T0 + 6 }), { kind: 'claim' });
  actor.send({ type: 'CLAIM', now: T0 + 6, fingerprint: 'fp-corrected', owner: 'req-2', leaseMs: LEASE });
  t.match(actor.getSnapshot().context, { fingerprint: 'fp-corrected', owner: 'req-2', createdAt: T0 + 6, refusalCode: null });
});

t.test('an unknown failure retains the claim as indeterminate: every later request gets OUTCOME_UNKNOWN', async (t) => {
  const { actor } = claimed();
  actor.send({ type: 'FAIL_UNKNOWN', now: T0 + 5, owner: 'req-1' });
  const s = actor.getSnapshot();
  t.equal(s.value, 'indeterminate');
  t.match(s.context, { indeterminateReason: 'failed', settledAt: T0 + 5 });
  for (const fingerprint of ['fp-1', 'fp-2']) {
    t.same(provisioningRequestVerdict(s, { fingerprint, now: T0 + DAY }), { kind: 'outcome-unknown' });
  }
  t.notOk(s.can({ type: 'CLAIM', now: T0 + DAY, fingerprint: 'fp-1', owner: 'req-2', leaseMs: LEASE }), 'not claimable again');
});

t.test('a dead owner\'s claim turns indeterminate once its lease expired, never before', async (t) => {
  const { actor } = claimed();
  actor.send({ type: 'OWNER_LOST', now: T0 + LEASE - 1 });
  t.equal(actor.getSnapshot().value, 'inProgress');
  t.same(provisioningRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-1', now: T0 + LEASE }), { kind: 'owner-lost' });
  actor.send({ type: 'OWNER_LOST', now: T0 + LEASE });
  t.equal(actor.getSnapshot().value, 'indeterminate');
  t.equal(actor.getSnapshot().context.indeterminateReason, 'owner-lost');
  actor.send({ type: 'COMPLETE', now: T0 + LEASE + 1, owner: 'req-1', response });
  t.equal(actor.getSnapshot().value, 'indeterminate', 'a late completion cannot rewrite it');
});

t.test('after 7 days every claim state expires and the next request runs fresh', async (t) => {
  const settle: Record<string, (a: ReturnType<typeof claimed>['actor']) => void> = {
    inProgress: () => {},
    completed: (a) => a.send({ type: 'COMPLETE', now: T0 + 1, owner: 'req-1', response }),
    released: (a) => a.send({ type: 'REFUSE', now: T0 + 1, owner: 'req-1', code: 'QUOTA_EXHAUSTED' }),
    indeterminate: (a) => a.send({ type: 'FAIL_UNKNOWN', now: T0 + 1, owner: 'req-1' }),
  };
  for (const [state, step] of Object.entries(settle)) {
    const { actor, emitted } = claimed();
    step(actor);
    t.equal(actor.getSnapshot().value, state);
    actor.send({ type: 'TICK', now: T0 + WEEK - 1 });
    t.equal(actor.getSnapshot().value, state, `${state}: not a millisecond early`);
    t.same(provisioningRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-9', now: T0 + WEEK }), { kind: 'expire-then-claim' });
    actor.send({ type: 'TICK', now: T0 + WEEK });
    t.equal(actor.getSnapshot().value, 'expired', `${state} expires`);
    t.same(emitted.at(-1), { type: 'claim.expired', key: 'svp-1:acme' }, `${state}: row is swept`);
    actor.send({ type: 'CLAIM', now: T0 + WEEK, fingerprint: 'fp-9', owner: 'req-9', leaseMs: LEASE });
    t.match(actor.getSnapshot().context, { fingerprint: 'fp-9', createdAt: T0 + WEEK, expiresAt: T0 + 2 * WEEK, indeterminateReason: null, response: null });
  }
});

t.test('an indeterminate claim persisted through JSON still refuses, then expires on time', async (t) => {
  const { actor } = claimed();
  actor.send({ type: 'FAIL_UNKNOWN', now: T0 + 5, owner: 'req-1' });
  const stored = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot;
  actor.stop();
  const restored = start(stored);
  t.same(provisioningRequestVerdict(restored.actor.getSnapshot(), { fingerprint: 'fp-1', now: T0 + DAY }), { kind: 'outcome-unknown' });
  restored.actor.send({ type: 'TICK', now: T0 + WEEK - 1 });
  t.equal(restored.actor.getSnapshot().value, 'indeterminate');
  restored.actor.send({ type: 'TICK', now: T0 + WEEK });
  t.equal(restored.actor.getSnapshot().value, 'expired');
  t.same(restored.emitted, [{ type: 'claim.expired', key: 'svp-1:acme' }]);
});
