// The request verdicts the claim services decide on (without stepping the machine) agree with the machine at every state and instant.
import t from 'tap';
import type { AnyMachineSnapshot } from 'xstate';
import { fireRequestVerdict, idempotencyClaimMachine } from '../../machines/idempotency-claim.machine.js';
import { provisioningClaimMachine, provisioningRequestVerdict } from '../../machines/provisioning-claim.machine.js';
import { durableMachine } from '../../runtime/actors/durable-step.js';

const LEASE = 30_000;
const claim = (now: number, owner = 'req-1') => ({ type: 'CLAIM', now, fingerprint: 'fp', owner, leaseMs: LEASE }) as const;
const response = { status: 202, body: {} };

function states<M extends typeof idempotencyClaimMachine | typeof provisioningClaimMachine>(machine: M, settle: ReadonlyArray<Record<string, unknown>>) {
  const durable = durableMachine(machine as typeof idempotencyClaimMachine);
  const out: AnyMachineSnapshot[] = [durable.start({ key: 'k' }).snapshot, durable.start({ key: 'k' }, [claim(0)]).snapshot];
  for (const event of settle) out.push(durable.start({ key: 'k' }, [claim(0), event as never]).snapshot);
  return { durable, snapshots: out };
}

// Instants around the lease and window boundaries.
const instants = (windowMs: number) => [1, LEASE - 1, LEASE, LEASE + 1, windowMs - 1, windowMs, windowMs + 1];

t.test('fire: each verdict names what the machine takes at that instant', async (t) => {
  const window = 24 * 3_600_000;
  const { snapshots } = states(idempotencyClaimMachine, [{ type: 'COMPLETE', now: 1, owner: 'req-1', response }]);
  for (const snapshot of snapshots) {
    for (const now of instants(window)) {
      const at = `${String(snapshot.value)} at ${now}`;
      const verdict = fireRequestVerdict(snapshot as never, { fingerprint: 'fp', now });
      const lead = { 'expire-then-claim': { type: 'TICK', now }, 'release-then-claim': { type: 'RELEASE_ABANDONED', now } }[verdict.kind as string];
      if (verdict.kind === 'claim') t.ok(snapshot.can(claim(now, 'req-2')), `${at}: claim is taken`);
      else if (lead !== undefined) {
        t.ok(snapshot.can(lead as never), `${at}: ${lead.type} is taken`);
        t.ok(durableMachine(idempotencyClaimMachine).step(snapshot as never, [lead as never]).snapshot.can(claim(now, 'req-2')), `${at}: then a claim is taken`);
      } else t.notOk(snapshot.can(claim(now, 'req-2')), `${at}: ${verdict.kind} means no claim is taken`);
      if (verdict.kind === 'replay') t.ok(snapshot.matches('completed'), `${at}: replays only a completed claim`);
    }
  }
});

t.test('provisioning: each verdict names what the machine takes at that instant', async (t) => {
  const window = 7 * 24 * 3_600_000;
  const { durable, snapshots } = states(provisioningClaimMachine, [
    { type: 'COMPLETE', now: 1, owner: 'req-1', response },
    { type: 'REFUSE', now: 1, owner: 'req-1', code: 'QUOTA_EXHAUSTED' },
    { type: 'FAIL_UNKNOWN', now: 1, owner: 'req-1' },
  ]);
  for (const snapshot of snapshots) {
    for (const now of instants(window)) {
      const at = `${String(snapshot.value)} at ${now}`;
      const verdict = provisioningRequestVerdict(snapshot as never, { fingerprint: 'fp', now });
      if (verdict.kind === 'claim') t.ok(snapshot.can(claim(now, 'req-2')), `${at}: claim is taken`);
      else if (verdict.kind === 'expire-then-claim') {
        const tick = durable.step(snapshot as never, [{ type: 'TICK', now } as never]);
        t.ok(tick.changed && tick.snapshot.can(claim(now, 'req-2')), `${at}: TICK then a claim is taken`);
      } else if (verdict.kind === 'owner-lost') t.ok(snapshot.can({ type: 'OWNER_LOST', now }), `${at}: OWNER_LOST is taken`);
      else t.notOk(snapshot.can(claim(now, 'req-2')), `${at}: ${verdict.kind} means no claim is taken`);
      if (verdict.kind === 'outcome-unknown') t.ok(snapshot.matches('indeterminate'), `${at}: unknown only when indeterminate`);
    }
  }
});
