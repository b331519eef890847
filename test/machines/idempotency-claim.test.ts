// Behaviour of the fire idempotency claim with a simulated clock: claim, replay, 24 h expiry, release, lease takeover, persistence.
import t from 'tap';
import { createActor, type SnapshotFrom } from 'xstate';
import {
  FIRE_CLAIM_WINDOW_MS,
  fireRequestVerdict,
  idempotencyClaimMachine,
  type IdempotencyClaimEmitted,
} from '../../machines/idempotency-claim.machine.js';

type Snapshot = SnapshotFrom<typeof idempotencyClaimMachine>;

const T0 = Date.UTC(2025, 0, 1);
const LEASE = 30_000;
const DAY = 24 * 60 * 60 * 1000;
const response = { status: 202, body: { sessions: [{ automationId: 'agent-1', sessionId: 'sess-1' }] } };

function start(snapshot?: Snapshot) {
  const input = { key: 'org-1:order-42' };
  const actor = createActor(idempotencyClaimMachine, snapshot ? { snapshot, input } : { input });
  const emitted: IdempotencyClaimEmitted[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  return { actor, emitted };
}

function claimed(now = T0) {
  const claim = start();
  claim.actor.send({ type: 'CLAIM', now, fingerprint: 'fp-1', owner: 'req-1', leaseMs: LEASE });
  return claim;
}

function completed() {
  const claim = claimed();
  claim.actor.send({ type: 'COMPLETE', now: T0 + 100, owner: 'req-1', response });
  return claim;
}

t.test('the window is 24 hours', async (t) => {
  t.equal(FIRE_CLAIM_WINDOW_MS, DAY);
});

t.test('the first request claims the key, with expiry and lease computed from its time', async (t) => {
  const fresh = start();
  t.same(fireRequestVerdict(fresh.actor.getSnapshot(), { fingerprint: 'fp-1', now: T0 }), { kind: 'claim' });
  const { actor, emitted } = claimed();
  t.equal(actor.getSnapshot().value, 'inProgress');
  t.match(actor.getSnapshot().context, { fingerprint: 'fp-1', owner: 'req-1', createdAt: T0, expiresAt: T0 + DAY, leaseExpiresAt: T0 + LEASE });
  t.same(emitted, [{ type: 'claim.scheduled', key: 'org-1:order-42', leaseExpiresAt: T0 + LEASE, expiresAt: T0 + DAY }]);
});

t.test('while in progress, the same request waits and a different one is a reused key', async (t) => {
  const s = claimed().actor.getSnapshot();
  t.same(fireRequestVerdict(s, { fingerprint: 'fp-1', now: T0 + 1_000 }), { kind: 'in-progress' });
  t.same(fireRequestVerdict(s, { fingerprint: 'fp-2', now: T0 + 1_000 }), { kind: 'key-reused' });
  t.notOk(s.can({ type: 'CLAIM', now: T0 + 1_000, fingerprint: 'fp-1', owner: 'req-2', leaseMs: LEASE }), 'a second claim is not taken');
});

t.test('only the original owner completes the claim; replays return the stored response', async (t) => {
  const { actor } = claimed();
  actor.send({ type: 'COMPLETE', now: T0 + 100, owner: 'req-2', response: { status: 500, body: {} } });
  t.equal(actor.getSnapshot().value, 'inProgress', 'another owner cannot complete it');
  actor.send({ type: 'COMPLETE', now: T0 + 100, owner: 'req-1', response });
  t.equal(actor.getSnapshot().value, 'completed');
  t.match(actor.getSnapshot().context, { response, settledAt: T0 + 100, leaseExpiresAt: null });
  t.same(fireRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-1', now: T0 + DAY - 1 }), { kind: 'replay', response });
  t.same(fireRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-2', now: T0 + DAY - 1 }), { kind: 'key-reused' });
});

t.test('24 hours after creation the claim expires and the key is reusable immediately', async (t) => {
  const { actor, emitted } = completed();
  actor.send({ type: 'TICK', now: T0 + DAY - 1 });
  t.equal(actor.getSnapshot().value, 'completed', 'not a millisecond early');
  t.same(fireRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-2', now: T0 + DAY }), { kind: 'expire-then-claim' }, 'the request time alone already frees the key');
  actor.send({ type: 'TICK', now: T0 + DAY });
  t.equal(actor.getSnapshot().value, 'expired');
  t.same(emitted.at(-1), { type: 'claim.expired', key: 'org-1:order-42' });
  t.same(fireRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-2', now: T0 + DAY }), { kind: 'claim' });
  actor.send({ type: 'CLAIM', now: T0 + DAY, fingerprint: 'fp-2', owner: 'req-9', leaseMs: LEASE });
  t.match(actor.getSnapshot().context, { fingerprint: 'fp-2', owner: 'req-9', createdAt: T0 + DAY, expiresAt: T0 + 2 * DAY, response: null });

  const stuck = claimed();
  stuck.actor.send({ type: 'TICK', now: T0 + DAY });
  t.equal(stuck.actor.getSnapshot().value, 'expired', 'an in-progress claim expires too');
});

t.test('the original owner releases a claim whose request failed with no effect', async (t) => {
  const { actor, emitted } = claimed();
  actor.send({ type: 'RELEASE', now: T0 + 50, owner: 'req-2' });
  t.equal(actor.getSnapshot().value, 'inProgress', 'another owner cannot release it');
  actor.send({ type: 'RELEASE', now: T0 + 50, owner: 'req-1' });
  t.equal(actor.getSnapshot().value, 'absent');
  t.match(actor.getSnapshot().context, { fingerprint: null, owner: null, expiresAt: null });
  t.same(emitted.at(-1), { type: 'claim.released', key: 'org-1:order-42', reason: 'failed-without-effect' });
  actor.send({ type: 'CLAIM', now: T0 + 60, fingerprint: 'fp-1', owner: 'req-3', leaseMs: LEASE });
  t.equal(actor.getSnapshot().context.createdAt, T0 + 60, 'the retry claims afresh');
});

t.test('a dead owner\'s claim is released once its lease expired (boot rule), never before', async (t) => {
  const { actor, emitted } = claimed();
  actor.send({ type: 'RELEASE_ABANDONED', now: T0 + LEASE - 1 });
  t.equal(actor.getSnapshot().value, 'inProgress', 'a running lease is the owner\'s to keep');
  t.same(fireRequestVerdict(actor.getSnapshot(), { fingerprint: 'fp-2', now: T0 + LEASE }), { kind: 'release-then-claim' });
  actor.send({ type: 'RELEASE_ABANDONED', now: T0 + LEASE });
  t.equal(actor.getSnapshot().value, 'absent');
  t.same(emitted.at(-1), { type: 'claim.released', key: 'org-1:order-42', reason: 'lease-expired' });
  actor.send({ type: 'CLAIM', now: T0 + LEASE, fingerprint: 'fp-1', owner: 'req-2', leaseMs: LEASE });
  actor.send({ type: 'COMPLETE', now: T0 + LEASE + 1, owner: 'req-1', response });
  t.equal(actor.getSnapshot().value, 'inProgress', 'the superseded owner cannot complete the new claim');
});

t.test('a completed claim persisted through JSON replays and expires the same way', async (t) => {
  const { actor } = completed();
  const stored = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot;
  actor.stop();
  const restored = start(stored);
  t.same(fireRequestVerdict(restored.actor.getSnapshot(), { fingerprint: 'fp-1', now: T0 + 1_000 }), { kind: 'replay', response });
  restored.actor.send({ type: 'TICK', now: T0 + DAY - 1 });
  t.equal(restored.actor.getSnapshot().value, 'completed');
  restored.actor.send({ type: 'TICK', now: T0 + DAY });
  t.equal(restored.actor.getSnapshot().value, 'expired');
  t.same(restored.emitted, [{ type: 'claim.expired', key: 'org-1:order-42' }]);
});
