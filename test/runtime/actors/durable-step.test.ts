// The shared durable step computes exactly what xstate's pure transition()/initialTransition() compute, on every machine.
import t from 'tap';
import { initialTransition, transition, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { agentRevisionMachine } from '../../../machines/agent-revision.machine.js';
import { MACHINE_CATALOG } from '../../../machines/catalog.js';
import { idempotencyClaimMachine } from '../../../machines/idempotency-claim.machine.js';
import { provisioningClaimMachine } from '../../../machines/provisioning-claim.machine.js';
import { sessionTurnMachine } from '../../../machines/session-turn.machine.js';
import { triggerFiringMachine } from '../../../machines/trigger-firing.machine.js';
import { durableMachine } from '../../../runtime/actors/durable-step.js';

type Loose = { type: string } & Record<string, unknown>;
const HOUR = 3_600_000;
const claim = (now: number, owner = 'req-1', fingerprint = 'fp') => ({ type: 'CLAIM', now, fingerprint, owner, leaseMs: 30_000 });
const response = { status: 202, body: { sessions: [] } };
const toSuspended = [
  { type: 'OPEN', now: 0, valid: true, permitted: true },
  { type: 'START', now: 1 },
  { type: 'SUSPEND', now: 2, approvalId: 'a1', toolName: 'crm.update', args: { id: 7 }, grantExpiresAt: HOUR },
];

// Paths through every machine, ignored events included (a step that takes nothing must say so).
const PATHS: ReadonlyArray<{ machine: AnyStateMachine; input: unknown; events: readonly Loose[] }> = [
  { machine: agentRevisionMachine, input: { agentId: 'a' }, events: [{ type: 'PATCH_SETUP', now: 1 }, { type: 'PUBLISH', now: 2, findings: [{ code: 'X' }] }, { type: 'PUBLISH', now: 3, findings: [] }, { type: 'PATCH_SETUP', now: 4 }, { type: 'PUBLISH', now: 5, findings: [] }] },
  { machine: sessionTurnMachine, input: { executionId: 'e', sessionId: 's' }, events: [...toSuspended, { type: 'REJECT', now: 3, approvalId: 'other' }, { type: 'APPROVE', now: 2 * HOUR, replacementCredentials: false }, { type: 'START', now: 5 }, { type: 'COMPLETE', now: 6 }, { type: 'START', now: 7 }] },
  { machine: sessionTurnMachine, input: { executionId: 'e', sessionId: 's' }, events: [...toSuspended, { type: 'EXPIRE_APPROVAL', now: 9, approvalId: 'a1' }] },
  { machine: sessionTurnMachine, input: { executionId: 'e', sessionId: 's' }, events: [{ type: 'MESSAGE', now: 0, valid: true, permitted: false }, { type: 'MESSAGE', now: 1, valid: true, permitted: true }, { type: 'CANCEL', now: 2 }] },
  { machine: triggerFiringMachine, input: { firingId: 'f', triggerId: 't', acceptedAt: 0, suppliedIntegrationIds: ['i1', 'i2'] }, events: [{ type: 'FAN_OUT', now: 0, subscriberIds: ['a', 'b'] }, { type: 'SUBSCRIBER_RESULT', now: 1, subscriberId: 'a', outcome: 'started', usedIntegrationIds: ['i1'] }, { type: 'SUBSCRIBER_RESULT', now: 1, subscriberId: 'a', outcome: 'failed' }, { type: 'SUBSCRIBER_RESULT', now: 2, subscriberId: 'b', outcome: 'skipped', code: 'OFF' }] },
  { machine: triggerFiringMachine, input: { firingId: 'f', triggerId: 't', acceptedAt: 0, suppliedIntegrationIds: [] }, events: [{ type: 'FAN_OUT', now: 0, subscriberIds: [] }] },
  { machine: idempotencyClaimMachine, input: { key: 'k' }, events: [claim(0), { type: 'COMPLETE', now: 1, owner: 'req-2', response }, { type: 'RELEASE_ABANDONED', now: 10 }, { type: 'RELEASE_ABANDONED', now: 30_000 }, claim(40_000), { type: 'COMPLETE', now: 40_001, owner: 'req-1', response }, { type: 'TICK', now: 24 * HOUR }, { type: 'TICK', now: 24 * HOUR + 40_000 }, claim(25 * HOUR), { type: 'RELEASE', now: 25 * HOUR, owner: 'req-1' }, { type: 'REFUSE', now: 1, owner: 'req-1', code: 'QUOTA_EXHAUSTED' }] },
  { machine: provisioningClaimMachine, input: { key: 'k' }, events: [claim(0), { type: 'REFUSE', now: 1, owner: 'req-1', code: 'QUOTA_EXHAUSTED' }, claim(2, 'req-2'), { type: 'FAIL_UNKNOWN', now: 3, owner: 'req-1' }, { type: 'FAIL_UNKNOWN', now: 3, owner: 'req-2' }, claim(4), { type: 'TICK', now: 7 * 24 * HOUR }, claim(8 * 24 * HOUR), { type: 'OWNER_LOST', now: 8 * 24 * HOUR + 30_000 }, { type: 'RELEASE', now: 1, owner: 'req-1' }] },
];

const emittedOf = (actions: ReadonlyArray<{ type: string; params?: unknown }>) =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: unknown }).event);
const shape = (s: AnyMachineSnapshot) => ({ value: s.value, status: s.status, context: s.context });

t.test('every step equals xstate transition(): same state, context, status and emitted effects', async (t) => {
  for (const { machine, input, events } of PATHS) {
    const durable = durableMachine(machine);
    const [initial, initialActions] = initialTransition(machine, input as never);
    let reference = initial as AnyMachineSnapshot;
    let ours = durable.start(input as never);
    t.same(shape(ours.snapshot), shape(reference), `${machine.id}: initial state`);
    t.same(ours.emitted, emittedOf(initialActions), `${machine.id}: initial effects`);
    for (const event of events) {
      const [next, actions] = transition(machine, reference, event as never);
      const step = durable.step(ours.snapshot, [event as never]);
      t.same(shape(step.snapshot), shape(next as AnyMachineSnapshot), `${machine.id}: ${event.type} state`);
      t.same(step.emitted, emittedOf(actions), `${machine.id}: ${event.type} effects`);
      t.equal(step.changed, next !== reference, `${machine.id}: ${event.type} changed = transition taken`);
      reference = next as AnyMachineSnapshot;
      ours = step;
    }
    const folded = durable.start(input as never, events as never);
    t.same(shape(folded.snapshot), shape(reference), `${machine.id}: start(input, events) folds the same path`);
  }
});

t.test('the catalog has a path for every machine', async (t) => {
  t.same([...new Set(PATHS.map((p) => p.machine.id))].sort(), MACHINE_CATALOG.map((e) => e.name).sort());
});

t.test('a stored snapshot restores to the same state, and a record resolves to its state and context', async (t) => {
  for (const { machine, input, events } of PATHS) {
    const durable = durableMachine(machine);
    const step = durable.start(input as never, events as never);
    const stored = JSON.parse(JSON.stringify(durable.persist(step.snapshot)));
    t.same(shape(durable.restore(stored)), shape(step.snapshot), `${machine.id}: persist -> restore`);
    t.same(shape(durable.resolve(step.snapshot.value as never, step.snapshot.context as never)), shape(step.snapshot), `${machine.id}: resolve`);
  }
  t.throws(() => durableMachine(idempotencyClaimMachine).restore({ status: 'active', value: 'nowhere', context: {}, children: {}, historyValue: {} }), /nowhere/);
});
