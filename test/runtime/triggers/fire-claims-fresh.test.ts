// The fresh claim fire-claims.ts derives from the idempotency-claim machine (created now, expiring a window later)
// is the machine's: checked against a fresh actor of the machine over generated times, keys, fingerprints, owners
// and responses, and the fold it replaces (from the initial state computed once) against the same actor.
import fc from 'fast-check';
import t from 'tap';
import { createActor } from 'xstate';
import { idempotencyClaimMachine } from '../../../machines/idempotency-claim.machine.js';
import { durableMachine } from '../../../runtime/actors/durable-step.js';
import { CLAIM_LEASE_MS, deriveFreshClaim, foldClaim } from '../../../runtime/triggers/fire-claims.js';

const durable = durableMachine(idempotencyClaimMachine);
const absent = durable.start({ key: '' }).snapshot;

/** The machine itself, as an actor with the request's scoped key: CLAIM then COMPLETE from absent. */
function machineClaim(key: string, now: number, fingerprint: string, owner: string, response: { status: number; body: unknown }) {
  const actor = createActor(idempotencyClaimMachine, { input: { key } });
  actor.start();
  actor.send({ type: 'CLAIM', now, fingerprint, owner, leaseMs: CLAIM_LEASE_MS });
  actor.send({ type: 'COMPLETE', now, owner, response });
  const snapshot = actor.getSnapshot();
  return snapshot.matches('completed') ? { createdAt: snapshot.context.createdAt, expiresAt: snapshot.context.expiresAt } : null;
}

t.test('the derived fresh claim and the fold from `absent` equal the machine\'s step', async (t) => {
  const fresh = deriveFreshClaim(durable, absent);
  t.ok(fresh, 'the window is read off the machine');
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 80 }),
      fc.integer({ min: 0, max: 2 ** 45 }),
      fc.stringMatching(/^[0-9a-f]{64}$/),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.record({ status: fc.constantFrom(200, 202), body: fc.jsonValue() }),
      (key, now, fingerprint, owner, response) => {
        const expected = machineClaim(key, now, fingerprint, owner, response);
        const derived = fresh!(now);
        const folded = foldClaim(durable, absent, [], { now, fingerprint, owner, response });
        return (
          expected !== null &&
          derived.createdAt === expected.createdAt && derived.expiresAt === expected.expiresAt &&
          folded !== null && folded.createdAt === expected.createdAt && folded.expiresAt === expected.expiresAt
        );
      },
    ),
    { numRuns: 1000 },
  );
});

t.test('a machine whose claim does not expire a fixed window after creation is not derived', async (t) => {
  // A stand-in machine: the same definition, but the fold's completed claim has no expiry.
  const broken = {
    ...durable,
    step: (snapshot: typeof absent, events: Parameters<typeof durable.step>[1]) => {
      const step = durable.step(snapshot, events);
      return { ...step, snapshot: { ...step.snapshot, context: { ...step.snapshot.context, expiresAt: null }, matches: step.snapshot.matches.bind(step.snapshot) } as typeof absent };
    },
  } as typeof durable;
  t.equal(deriveFreshClaim(broken, absent), null, 'falls back to folding every fire');
});
