// Behaviour of the trigger firing machine: fan-out, per-subscriber results, the outcome rule, persistence (spec Trigger, Trigger firing).
import fc from 'fast-check';
import t from 'tap';
import { createActor, type SnapshotFrom } from 'xstate';
import {
  firingOutcome,
  triggerFiringMachine,
  type SubscriberOutcome,
  type TriggerFiringEmitted,
} from '../../machines/trigger-firing.machine.js';

type Snapshot = SnapshotFrom<typeof triggerFiringMachine>;

const T0 = Date.UTC(2025, 0, 1);
const input = { firingId: 'run-1', triggerId: 'trg-1', acceptedAt: T0, suppliedIntegrationIds: ['crm', 'mail', 'chat'] };

function start(snapshot?: Snapshot) {
  const actor = createActor(triggerFiringMachine, snapshot ? { snapshot, input } : { input });
  const emitted: TriggerFiringEmitted[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  return { actor, emitted };
}

/** Fans out to one subscriber per outcome and reports the first `reported` of them. */
function fire(outcomes: readonly SubscriberOutcome[], reported = outcomes.length) {
  const firing = start();
  const ids = outcomes.map((_, i) => `sub-${i}`);
  firing.actor.send({ type: 'FAN_OUT', now: T0 + 1, subscriberIds: ids });
  outcomes.slice(0, reported).forEach((outcome, i) => firing.actor.send({ type: 'SUBSCRIBER_RESULT', now: T0 + 2 + i, subscriberId: ids[i], outcome }));
  return firing;
}

t.test('the outcome rule, case by case', async (t) => {
  t.equal(firingOutcome([]), 'skipped', 'no subscribers');
  t.equal(firingOutcome(['started', 'started']), 'succeeded', 'all started');
  t.equal(firingOutcome(['skipped', 'skipped']), 'skipped', 'none started, all skipped');
  t.equal(firingOutcome(['skipped', 'failed']), 'partial', 'none started, but skipped and failed disagree');
  t.equal(firingOutcome(['failed']), 'failed');
  t.equal(firingOutcome(['started', 'skipped']), 'partial', 'mixed');
  t.equal(firingOutcome(['started', 'failed', 'skipped']), 'partial', 'mixed');
});

t.test('the outcome rule as a property over any list of subscriber outcomes', async (t) => {
  const outcome = fc.constantFrom<SubscriberOutcome>('started', 'skipped', 'failed');
  fc.assert(
    fc.property(fc.array(outcome, { maxLength: 12 }), (list) => {
      const distinct = new Set(list);
      const expected =
        distinct.size === 0 ? 'skipped'
          : distinct.size > 1 ? 'partial'
            : list[0] === 'started' ? 'succeeded'
              : list[0];
      return firingOutcome(list) === expected && firingOutcome([...list].reverse()) === expected;
    }),
  );
  t.pass('property held for 100 generated lists');
});

t.test('an empty subscriber list is recorded as skipped at once', async (t) => {
  const { actor, emitted } = start();
  actor.send({ type: 'FAN_OUT', now: T0 + 1, subscriberIds: [] });
  const s = actor.getSnapshot();
  t.equal(s.value, 'recorded');
  t.equal(s.status, 'done');
  t.match(s.context, { outcome: 'skipped', recordedAt: T0 + 1, unusedIntegrationIds: ['crm', 'mail', 'chat'] });
  t.same(emitted, [{ type: 'firing.recorded', firingId: 'run-1', triggerId: 'trg-1', outcome: 'skipped', unusedIntegrationIds: ['crm', 'mail', 'chat'] }]);
});

t.test('the firing stays fanning out until every subscriber reported, then records the computed outcome', async (t) => {
  const cases: [SubscriberOutcome[], string][] = [
    [['started', 'started', 'started'], 'succeeded'],
    [['started', 'failed', 'skipped'], 'partial'],
    [['skipped', 'failed'], 'partial'],
    [['skipped', 'skipped'], 'skipped'],
  ];
  for (const [outcomes, expected] of cases) {
    const waiting = fire(outcomes, outcomes.length - 1);
    t.equal(waiting.actor.getSnapshot().value, 'fanningOut', 'one report missing');
    t.same(waiting.emitted, []);
    const { actor, emitted } = fire(outcomes);
    t.equal(actor.getSnapshot().value, 'recorded');
    t.equal(actor.getSnapshot().context.outcome, expected, `${outcomes.join(',')} => ${expected}`);
    t.equal(actor.getSnapshot().context.recordedAt, T0 + 1 + outcomes.length, 'recorded at the last report time');
    t.equal(emitted.length, 1);
  }
});

t.test('per-subscriber results keep code and session; unused supplied integrations are recorded', async (t) => {
  const { actor } = start();
  actor.send({ type: 'FAN_OUT', now: T0 + 1, subscriberIds: ['agent-a', 'flow-b', 'agent-a'] });
  t.same(actor.getSnapshot().context.subscriberIds, ['agent-a', 'flow-b'], 'duplicates collapse');
  actor.send({ type: 'SUBSCRIBER_RESULT', now: T0 + 2, subscriberId: 'agent-a', outcome: 'started', sessionId: 'sess-a', usedIntegrationIds: ['crm'] });
  actor.send({ type: 'SUBSCRIBER_RESULT', now: T0 + 3, subscriberId: 'flow-b', outcome: 'failed', code: 'CALLER_CREDENTIALS_REQUIRED' });
  const c = actor.getSnapshot().context;
  t.same(c.results['agent-a'], { outcome: 'started', code: null, sessionId: 'sess-a', usedIntegrationIds: ['crm'], reportedAt: T0 + 2 });
  t.same(c.results['flow-b'], { outcome: 'failed', code: 'CALLER_CREDENTIALS_REQUIRED', sessionId: null, usedIntegrationIds: [], reportedAt: T0 + 3 });
  t.equal(c.outcome, 'partial');
  t.same(c.unusedIntegrationIds, ['mail', 'chat']);
});

t.test('duplicate and unknown subscriber reports are not taken', async (t) => {
  const { actor } = start();
  actor.send({ type: 'FAN_OUT', now: T0 + 1, subscriberIds: ['a', 'b'] });
  actor.send({ type: 'SUBSCRIBER_RESULT', now: T0 + 2, subscriberId: 'a', outcome: 'started' });
  const s = actor.getSnapshot();
  t.notOk(s.can({ type: 'SUBSCRIBER_RESULT', now: T0 + 3, subscriberId: 'a', outcome: 'failed' }), 'a second report for a');
  t.notOk(s.can({ type: 'SUBSCRIBER_RESULT', now: T0 + 3, subscriberId: 'zzz', outcome: 'started' }), 'an unknown subscriber');
  actor.send({ type: 'SUBSCRIBER_RESULT', now: T0 + 3, subscriberId: 'a', outcome: 'failed' });
  t.equal(actor.getSnapshot().context.results.a?.outcome, 'started', 'first report stands');
  t.notOk(start().actor.getSnapshot().can({ type: 'SUBSCRIBER_RESULT', now: T0, subscriberId: 'a', outcome: 'started' }), 'no results before fan-out');
});

t.test('a firing persisted mid fan-out through JSON finishes the same way', async (t) => {
  const { actor } = start();
  actor.send({ type: 'FAN_OUT', now: T0 + 1, subscriberIds: ['a', 'b'] });
  actor.send({ type: 'SUBSCRIBER_RESULT', now: T0 + 2, subscriberId: 'a', outcome: 'skipped', code: 'ENTITLEMENT_DISABLED' });
  const stored = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot;
  actor.stop();
  const restored = start(stored);
  t.equal(restored.actor.getSnapshot().value, 'fanningOut');
  t.notOk(restored.actor.getSnapshot().can({ type: 'SUBSCRIBER_RESULT', now: T0 + 3, subscriberId: 'a', outcome: 'started' }), 'a stays reported');
  restored.actor.send({ type: 'SUBSCRIBER_RESULT', now: T0 + 3, subscriberId: 'b', outcome: 'failed' });
  t.equal(restored.actor.getSnapshot().context.outcome, 'partial', 'skipped and failed disagree');
  t.match(restored.emitted, [{ type: 'firing.recorded', outcome: 'partial' }]);
});
