// Last-Event-ID replay: exactly the missed events, or stream.reset when they cannot be replayed (DESIGN "Event bus").
import fc from 'fast-check';
import t from 'tap';
import type { PersistedSessionEvent, SessionEventEnvelope } from '../../../runtime/events/session-event.js';
import { openTestStore } from '../../helpers/test-store.js';
import { busFixture, busOver, type BusFixture, range, recorder, seqs, settle } from './bus-fixture.js';

const delta = (n: number): PersistedSessionEvent => ({ type: 'message.delta', executionId: 'e1', messageId: 'm1', text: `chunk ${n} ` });
const persisted = (events: readonly SessionEventEnvelope[]) => events.filter((e) => e.event.type !== 'stream.reset');

async function emitMany(bus: BusFixture['bus'], session: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await bus.emit(session, delta(i));
}

t.test('replay after Last-Event-ID delivers exactly the missed events, then live ones, with zero gaps and duplicates', async (t) => {
  // Small batches and backlog force replay to page through the table and hand over to the in-memory backlog.
  const { bus, sessions } = await busFixture(t, 1, { batchLimit: 3, backlogLimit: 4 });
  const [s] = sessions;
  await emitMany(bus, s, 20);
  const watch = recorder();
  const sub = await bus.subscribe(s, 7, watch.listener);
  t.strictSame([sub.startSeq, sub.latestSeq, sub.reset], [7, 20, null]);
  await emitMany(bus, s, 2);
  await settle(bus);
  t.strictSame(seqs(watch.events), range(8, 22));
  t.strictSame(
    watch.events.map((e) => (e.event as { text: string }).text),
    range(7, 21).map((n) => `chunk ${n >= 20 ? n - 20 : n} `),
    'payloads read back from the table match what was stored',
  );
  t.ok(watch.batches > 5, 'replay was paged, not one giant write');
});

t.test('a subscriber from "now" (no Last-Event-ID) starts at the current max and replays nothing', async (t) => {
  const { bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  await emitMany(bus, s, 5);
  const watch = recorder();
  const sub = await bus.subscribe(s, null, watch.listener);
  t.strictSame([sub.startSeq, sub.latestSeq, sub.reset], [5, 5, null]);
  await emitMany(bus, s, 1);
  await settle(bus);
  t.strictSame(seqs(watch.events), [6]);
});

t.test('a committed-but-unpublished event is counted by the snapshot position and not delivered twice', async (t) => {
  const { store, bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  const early = recorder();
  await bus.subscribe(s, null, early.listener);
  const stored = await store.writer.submit((tx) => bus.append(tx, s, delta(1)));
  const late = recorder();
  const sub = await bus.subscribe(s, null, late.listener);
  t.equal(sub.startSeq, 1, 'the late subscriber snapshot already reflects seq 1');
  bus.publish(stored);
  await settle(bus);
  t.strictSame(seqs(early.events), [1]);
  t.strictSame(seqs(late.events), [], 'seq 1 is not sent after a snapshot that includes it');
});

t.test('stream.reset when Last-Event-ID is ahead of the stored max, then live events continue from the max', async (t) => {
  const { bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  await emitMany(bus, s, 3);
  const watch = recorder();
  const sub = await bus.subscribe(s, 99, watch.listener);
  t.strictSame([sub.startSeq, sub.latestSeq, sub.reset], [3, 3, 'last_event_id_ahead']);
  await emitMany(bus, s, 2);
  await settle(bus);
  t.equal(watch.events[0].event.type, 'stream.reset');
  t.strictSame(watch.events[0].event, { type: 'stream.reset', reason: 'last_event_id_ahead', requestedSeq: 99, latestSeq: 3 });
  t.equal(watch.events[0].seq, 3, 'the reset carries the stream position');
  t.strictSame(seqs(persisted(watch.events)), [4, 5]);
});

t.test('stream.reset when the events after Last-Event-ID were pruned; pruning keeps the high-water row', async (t) => {
  const { store, bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  await emitMany(bus, s, 10);
  t.equal(await store.repos.sessionEvents.pruneThrough(s, 1_000), 9, 'every row but the newest was pruned');
  t.strictSame(await store.repos.sessionEvents.bounds(s), { minSeq: 10, maxSeq: 10 });
  const watch = recorder();
  const sub = await bus.subscribe(s, 4, watch.listener);
  t.equal(sub.reset, 'events_pruned');
  const ok = recorder();
  t.equal((await await bus.subscribe(s, 9, ok.listener)).reset, null, 'seq 9 is still a replayable position: seq 10 is stored');
  await emitMany(bus, s, 1);
  await settle(bus);
  t.strictSame(watch.events[0].event, { type: 'stream.reset', reason: 'events_pruned', requestedSeq: 4, latestSeq: 10 });
  t.strictSame(seqs(persisted(watch.events)), [11], 'numbering continued at 11, not 1');
  t.strictSame(seqs(ok.events), [10, 11]);
});

t.test('stream.reset for a Last-Event-ID that is not a non-negative integer', async (t) => {
  const { bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  await emitMany(bus, s, 2);
  for (const bad of [Number.NaN, -1, 1.5]) {
    const watch = recorder();
    t.equal((await await bus.subscribe(s, bad, watch.listener)).reset, 'last_event_id_invalid', String(bad));
    await settle(bus);
    t.strictSame(watch.events.map((e) => e.event), [
      { type: 'stream.reset', reason: 'last_event_id_invalid', requestedSeq: Number.isSafeInteger(bad) ? bad : null, latestSeq: 2 },
    ]);
  }
});

t.test('rows pruned under a subscriber still catching up become a stream.reset, not a silent gap', async (t) => {
  const { store, bus, sessions } = await busFixture(t, 1, { batchLimit: 2 });
  const [s] = sessions;
  await emitMany(bus, s, 6);
  const watch = recorder();
  await bus.subscribe(s, 0, watch.listener);
  await store.repos.sessionEvents.pruneThrough(s, 3);
  await settle(bus);
  t.strictSame(watch.events[0].event, { type: 'stream.reset', reason: 'events_pruned', requestedSeq: 0, latestSeq: 6 });
  t.equal(persisted(watch.events).length, 0, 'after the reset the subscriber is at the head');
});

t.test('property: for any history, pruning and Last-Event-ID, a subscriber gets exactly (afterSeq, head] or one reset then live', async (t) => {
  // One database for every run (a fresh PostgreSQL one per run would cost more than the property): each run its own session.
  const db = await openTestStore(t);
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 25 }),
      fc.integer({ min: 0, max: 30 }),
      fc.integer({ min: -2, max: 30 }),
      fc.integer({ min: 0, max: 4 }),
      fc.integer({ min: 1, max: 5 }),
      async (stored, pruneThrough, afterSeq, live, batchLimit) => {
        const { store, bus, sessions } = await busOver(db, 1, { batchLimit, backlogLimit: 3 });
        const [s] = sessions;
        await emitMany(bus, s, stored);
        await store.repos.sessionEvents.pruneThrough(s, pruneThrough);
        const { minSeq } = await store.repos.sessionEvents.bounds(s);
        const watch = recorder();
        const sub = await bus.subscribe(s, afterSeq, watch.listener);
        await emitMany(bus, s, live);
        await settle(bus);
        const replayable = afterSeq >= 0 && afterSeq <= stored && afterSeq >= minSeq - 1;
        const got = seqs(persisted(watch.events));
        if (replayable) {
          return sub.reset === null && watch.events.every((e) => e.event.type !== 'stream.reset') && got.join() === range(afterSeq + 1, stored + live).join();
        }
        return sub.reset !== null && watch.events[0].event.type === 'stream.reset' && got.join() === range(stored + 1, stored + live).join();
      },
    ),
    { numRuns: 150 },
  );
  t.pass('property held');
});
