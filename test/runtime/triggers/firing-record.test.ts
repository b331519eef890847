// The firing verdicts recordFiring remembers per shape (runtime/triggers/firing-record.ts) are the trigger-firing
// machine's: checked against a fresh actor of the machine over generated firings (ids, times, codes, sessions,
// duplicates and supplied credentials varied), in one process so remembered entries are reused across firings.
import fc from 'fast-check';
import t from 'tap';
import { createActor } from 'xstate';
import { triggerFiringMachine, type SubscriberOutcome, type TriggerFiringEmitted } from '../../../machines/trigger-firing.machine.js';
import type { PlannedStart } from '../../../runtime/sessions/contracts.js';
import type { SubscriberPlan } from '../../../runtime/triggers/fire-subscribers.js';
import { firingShape, firingVerdict, recordFiring, type FiringFacts } from '../../../runtime/triggers/firing-record.js';

/** The machine itself, as an actor: what the Run history row must say. */
function machineVerdict(facts: FiringFacts, plans: readonly SubscriberPlan[]) {
  const actor = createActor(triggerFiringMachine, {
    input: { firingId: facts.runId, triggerId: facts.triggerId, acceptedAt: facts.acceptedAt, suppliedIntegrationIds: facts.suppliedIntegrationIds },
  });
  const emitted: TriggerFiringEmitted[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  actor.send({ type: 'FAN_OUT', now: facts.acceptedAt, subscriberIds: plans.map((p) => p.automationId) });
  for (const p of plans) {
    actor.send({
      type: 'SUBSCRIBER_RESULT',
      now: facts.acceptedAt,
      subscriberId: p.automationId,
      outcome: p.outcome,
      ...(p.code !== null ? { code: p.code } : {}),
      ...(p.start !== null ? { sessionId: p.start.sessionId } : {}),
      usedIntegrationIds: p.usedIntegrationIds,
    });
  }
  const recorded = emitted.find((e) => e.type === 'firing.recorded');
  return actor.getSnapshot().matches('recorded') && recorded ? { outcome: recorded.outcome, unusedIntegrationIds: [...recorded.unusedIntegrationIds] } : null;
}

const outcome = fc.constantFrom<SubscriberOutcome>('started', 'skipped', 'failed');
const integrations = ['crm', 'mail', 'chat'];

const firing = fc
  .record({
    supplied: fc.oneof(fc.constant([] as string[]), fc.subarray(integrations)),
    subscribers: fc.array(
      fc.record({
        automation: fc.integer({ min: 0, max: 3 }),
        outcome,
        code: fc.option(fc.constantFrom('NOT_PUBLISHED', 'ENTITLEMENT_DISABLED', 'VALIDATION'), { nil: null }),
        used: fc.subarray(integrations),
        session: fc.uuid(),
      }),
      { maxLength: 5 },
    ),
    runId: fc.uuid(),
    triggerId: fc.uuid(),
    acceptedAt: fc.integer({ min: 0, max: 2 ** 42 }),
  })
  .map(({ supplied, subscribers, runId, triggerId, acceptedAt }) => {
    const facts: FiringFacts = { runId, triggerId, orgId: 'org-1', source: 'api', firedBy: null, idempotencyKey: null, acceptedAt, suppliedIntegrationIds: supplied };
    const plans: SubscriberPlan[] = subscribers.map((s, position) => ({
      automationId: `automation-${s.automation}`,
      position,
      outcome: s.outcome,
      code: s.code,
      reason: null,
      start: s.outcome === 'started' ? ({ sessionId: s.session } as PlannedStart) : null,
      // A subscriber receives only supplied integrations (fire-subscribers.ts); none when nothing was supplied.
      usedIntegrationIds: s.used.filter((id) => supplied.includes(id)),
    }));
    return { facts, plans };
  });

t.test('remembered verdicts equal the machine\'s, firing after firing', async (t) => {
  let shaped = 0;
  fc.assert(
    fc.property(firing, ({ facts, plans }) => {
      if (firingShape(facts, plans) !== null) shaped += 1;
      const expected = machineVerdict(facts, plans);
      if (expected === null) return true;
      // Twice: the second answer comes from the remembered entry when the firing has a shape.
      for (let i = 0; i < 2; i += 1) {
        const got = firingVerdict(facts, plans);
        if (got.outcome !== expected.outcome || JSON.stringify(got.unusedIntegrationIds) !== JSON.stringify(expected.unusedIntegrationIds)) return false;
      }
      return true;
    }),
    { numRuns: 2000 },
  );
  t.ok(shaped > 500, `most generated firings were remembered (${shaped})`);
});

t.test('same shape, different firings: one remembered verdict, still the machine\'s', async (t) => {
  const facts = (runId: string, acceptedAt: number): FiringFacts => ({
    runId, triggerId: 'trg', orgId: 'org', source: 'api', firedBy: 'u', idempotencyKey: null, acceptedAt, suppliedIntegrationIds: [],
  });
  const plan = (automationId: string, o: SubscriberOutcome, sessionId: string | null): SubscriberPlan => ({
    automationId, position: 0, outcome: o, code: o === 'started' ? null : 'NOT_PUBLISHED', reason: null, start: sessionId === null ? null : ({ sessionId } as PlannedStart), usedIntegrationIds: [],
  });
  const a = [plan('a1', 'started', 's1'), plan('a2', 'skipped', null)];
  const b = [plan('b1', 'started', 's2'), plan('b2', 'skipped', null)];
  t.equal(firingShape(facts('r1', 1), a), firingShape(facts('r2', 2), b), 'ids and times are not part of the shape');
  t.same(recordFiring(facts('r1', 1), a).outcome, 'partial');
  t.same(recordFiring(facts('r2', 2), b).outcome, machineVerdict(facts('r2', 2), b)?.outcome);
  const dup = [plan('x', 'started', 's3'), plan('x', 'skipped', null)];
  t.not(firingShape(facts('r3', 3), dup), firingShape(facts('r3', 3), a), 'a repeated subscriber is its own shape');
  t.equal(firingVerdict(facts('r3', 3), dup).outcome, machineVerdict(facts('r3', 3), dup)?.outcome, 'the repeat is ignored by the machine');
  t.equal(firingShape({ ...facts('r4', 4), suppliedIntegrationIds: ['crm'] }, a), null, 'supplied credentials: not remembered');
});
