// The session event bus: seq assignment through the group-commit writer, persist-before-send, publish order, fan-out chunking.
import t from 'tap';
import type { PersistedSessionEvent, SessionEventEnvelope } from '../../../runtime/events/session-event.js';
import { busFixture, nextTurn, range, recorder, seqs, settle } from './bus-fixture.js';

const started = (n: number): PersistedSessionEvent => ({ type: 'turn.started', executionId: `exec-${n}`, resumed: false });
const executionOf = (e: SessionEventEnvelope): string => (e.event as { executionId: string }).executionId;

t.test('concurrent appends through the group-commit writer get dense per-session seqs in submission order (DESIGN "Event bus")', async (t) => {
  const { store, bus, sessions } = await busFixture(t, 2);
  const [a, b] = sessions;
  const watchA = recorder();
  const watchB = recorder();
  await bus.subscribe(a, null, watchA.listener);
  await bus.subscribe(b, null, watchB.listener);

  const expected: Record<string, string[]> = { [a]: [], [b]: [] };
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < 300; i++) {
    const session = i % 3 === 0 ? b : a;
    if (i % 17 === 5) {
      // A unit that appends and then fails rolls back to its savepoint: its seq must be reused, not skipped.
      pending.push(
        store.writer
          .submit(async (tx) => {
            await bus.append(tx, session, started(i));
            throw new Error('unit failed after appending');
          })
          .catch(() => 'rolled back'),
      );
      continue;
    }
    expected[session].push(`exec-${i}`);
    pending.push(bus.emit(session, started(i)));
  }
  const results = await Promise.all(pending);
  // One transaction per unit would be 300. Units share transactions: a batch stops at a few ms of unit time
  // (maxBatchMs; on PostgreSQL two round trips per unit here), so an idle machine needs a few and a busy one (other
  // test files on the same cores) more — never one per unit.
  t.ok(store.writer.stats.batches < 100, `300 units shared ${store.writer.stats.batches} transaction(s)`);
  t.equal(results.filter((r) => r === 'rolled back').length, 18, 'the failing units were rolled back');

  for (const session of [a, b]) {
    const rows = await store.repos.sessionEvents.listRange(session, 0, 1e9, 1e6);
    t.strictSame(rows.map((r) => r.seq), range(1, expected[session].length), 'seqs are 1..n with no hole left by rolled-back units');
    t.strictSame(rows.map((r) => JSON.parse(r.payload).executionId), expected[session], 'table order is submission order');
  }
  await settle(bus);
  t.strictSame(seqs(watchA.events), range(1, expected[a].length), 'live subscriber of A saw every seq once, in order');
  t.strictSame(watchA.events.map(executionOf), expected[a]);
  t.strictSame(seqs(watchB.events), range(1, expected[b].length), 'live subscriber of B saw every seq once, in order');
  t.ok(watchA.events.every((e) => e.sessionId === a) && watchB.events.every((e) => e.sessionId === b), 'no cross-session delivery');
});

t.test('an event is in the table before any subscriber receives it, and delivery never runs inline in publish', async (t) => {
  const { store, bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  // Read from inside the delivery (issued there, answered later on PostgreSQL): what the table held at that moment.
  const seenInTable: Array<Promise<boolean>> = [];
  let calls = 0;
  await bus.subscribe(s, null, (batch) => {
    calls += 1;
    for (const e of batch) seenInTable.push(Promise.resolve(store.repos.sessionEvents.listRange(s, e.seq - 1, e.seq, 1)).then((rows) => rows.length === 1));
  });
  await store.writer.submit((tx) => bus.append(tx, s, started(1)));
  t.equal(calls, 0, 'published by the unit\'s outbox at commit, which only queues (fan-out runs from setImmediate, PERF-NOTES cork pitfall)');
  await nextTurn();
  t.equal(calls, 1);
  t.strictSame(await Promise.all(seenInTable), [true]);
});

t.test('publishing out of order or twice still yields seq order with zero gaps and zero duplicates', async (t) => {
  const { store, bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  const watch = recorder();
  await bus.subscribe(s, null, watch.listener);
  const first = await store.writer.submit((tx) => bus.append(tx, s, started(1)));
  const second = await store.writer.submit((tx) => bus.append(tx, s, started(2)));
  const third = await store.writer.submit((tx) => bus.append(tx, s, started(3)));
  bus.publish(third);
  bus.publish(first);
  bus.publish(second);
  bus.publish(third);
  await settle(bus);
  t.strictSame(seqs(watch.events), [1, 2, 3], 'the gap before seq 3 was read back from the table');
  t.strictSame(watch.events.map(executionOf), ['exec-1', 'exec-2', 'exec-3']);
});

t.test('envelope: v 1, sessionId, seq, ISO ts from the injected clock, event with type and payload', async (t) => {
  const { bus, clock, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  clock.set(Date.UTC(2026, 4, 2, 3, 4, 5, 678));
  const env = await bus.emit(s, { type: 'turn.completed', executionId: 'e1', outcome: 'completed', errorCode: null });
  t.strictSame(JSON.parse(JSON.stringify(env)), {
    v: 1,
    sessionId: s,
    seq: 1,
    ts: '2026-05-02T03:04:05.678Z',
    event: { type: 'turn.completed', executionId: 'e1', outcome: 'completed', errorCode: null },
  });
  t.ok(Object.isFrozen(env) && Object.isFrozen(env.event), 'shared envelopes are frozen');
});

t.test('synthetic types are refused by append: snapshot and stream.reset never get a stored seq', async (t) => {
  const { store, bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  const bogus = { type: 'stream.reset', reason: 'events_pruned', requestedSeq: 1, latestSeq: 1 } as unknown as PersistedSessionEvent;
  await t.rejects(store.writer.submit((tx) => bus.append(tx, s, bogus)), TypeError);
  t.equal(await store.repos.sessionEvents.maxSeq(s), 0);
});

t.test('fan-out to many subscribers is chunked across event-loop turns (fanoutChunk writes per turn)', async (t) => {
  const { bus, sessions } = await busFixture(t, 1, { fanoutChunk: 1000 });
  const [s] = sessions;
  let delivered = 0;
  for (let i = 0; i < 2500; i++) await bus.subscribe(s, null, () => (delivered += 1));
  await bus.emit(s, started(1));
  t.equal(delivered, 0, 'emit returned after commit + publish; no subscriber written yet');
  await nextTurn();
  t.equal(delivered, 1000, 'first turn: one chunk');
  await nextTurn();
  t.equal(delivered, 2000, 'second turn: the next chunk');
  await nextTurn();
  t.equal(delivered, 2500, 'third turn: the rest');
  t.equal(bus.stats().queued, 0);
});

t.test('a throwing listener is dropped and reported; other subscribers keep receiving', async (t) => {
  const { bus, sessions, errors } = await busFixture(t, 1);
  const [s] = sessions;
  const watch = recorder();
  await bus.subscribe(s, null, () => {
    throw new Error('listener bug');
  });
  await bus.subscribe(s, null, watch.listener);
  await bus.emit(s, started(1));
  await settle(bus);
  await bus.emit(s, started(2));
  await settle(bus);
  t.equal(errors.length, 1, 'reported once, then unsubscribed');
  t.strictSame(seqs(watch.events), [1, 2]);
  t.equal(bus.stats().subscribers, 1);
});

t.test('unsubscribe stops delivery and forgets the session once nobody watches it', async (t) => {
  const { bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  const watch = recorder();
  const sub = await bus.subscribe(s, null, watch.listener);
  t.equal(bus.stats().sessions, 1);
  sub.unsubscribe();
  t.strictSame(bus.stats().sessions, 0);
  await bus.emit(s, started(1));
  await settle(bus);
  t.strictSame(watch.events, []);
});
