// message.delta coalescing (docs/events.md): merged chunks keep order against other events; seqs stay dense.
import t from 'tap';
import { StaleLeaseError } from '../../../storage/port/unit-errors.js';
import { openTestStore } from '../../helpers/test-store.js';
import { busFixture, busOver, range, recorder, seqs, settle } from './bus-fixture.js';

const chunk = (text: string, messageId = 'm1') => ({ executionId: 'e1', messageId, text });
const types = (events: readonly { event: { type: string } }[]) => events.map((e) => e.event.type);
const texts = (events: readonly { event: unknown }[]) => events.map((e) => (e.event as { text?: string }).text);

t.test('chunks of one message within the window become one stored and sent message.delta', async (t) => {
  const { store, bus, sessions, timers } = await busFixture(t, 1);
  const [s] = sessions;
  const watch = recorder();
  await bus.subscribe(s, null, watch.listener);
  for (const piece of ['Hel', 'lo, ', 'wor', 'ld']) bus.pushDelta(s, chunk(piece));
  t.equal(await store.repos.sessionEvents.maxSeq(s), 0, 'nothing stored before the window closes');
  t.equal(timers.armed.size, 1, 'one window timer for all buffered sessions');
  t.equal([...timers.armed.values()][0].ms, 50, 'default window is 50 ms');
  timers.fireAll();
  await bus.flushDeltas();
  await settle(bus);
  const rows = await store.repos.sessionEvents.listRange(s, 0, 100, 100);
  t.strictSame(rows.map((r) => [r.seq, r.type, JSON.parse(r.payload)]), [
    [1, 'message.delta', { executionId: 'e1', messageId: 'm1', text: 'Hello, world' }],
  ]);
  t.strictSame(texts(watch.events), ['Hello, world'], 'subscribers get the stored (merged) event, once');
});

t.test('a switch of message starts a new delta event; order is kept', async (t) => {
  const { bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  const watch = recorder();
  await bus.subscribe(s, null, watch.listener);
  bus.pushDelta(s, chunk('a1', 'm1'));
  bus.pushDelta(s, chunk('b1', 'm2'));
  bus.pushDelta(s, chunk('b2', 'm2'));
  bus.pushDelta(s, chunk('a2', 'm1'));
  await bus.flushDeltas();
  await settle(bus);
  t.strictSame(
    watch.events.map((e) => [e.seq, (e.event as { messageId: string }).messageId, (e.event as { text: string }).text]),
    [
      [1, 'm1', 'a1'],
      [2, 'm2', 'b1b2'],
      [3, 'm1', 'a2'],
    ],
  );
});

t.test('buffered deltas are stored before the session\'s next event, in the same unit of work', async (t) => {
  const { store, bus, sessions, timers } = await busFixture(t, 2);
  const [s, other] = sessions;
  const watch = recorder();
  await bus.subscribe(s, null, watch.listener);
  bus.pushDelta(s, chunk('thinking… '));
  bus.pushDelta(other, chunk('elsewhere'));
  const stored = await store.writer.submit((tx) => bus.append(tx, s, { type: 'tool_call.started', executionId: 'e1', toolCallId: 't1', toolName: 'crm.create_contact', step: 1, edited: false }),
  );
  t.strictSame(
    stored.map((e) => [e.seq, e.event.type]),
    [
      [1, 'message.delta'],
      [2, 'tool_call.started'],
    ],
    'the unit returned both envelopes, delta first',
  );
  bus.publish(stored);
  timers.fireAll();
  await bus.flushDeltas();
  await settle(bus);
  t.strictSame(types(watch.events), ['message.delta', 'tool_call.started'], 'the window flush found nothing left for this session');
  t.strictSame(seqs(watch.events), [1, 2]);
  t.equal(await store.repos.sessionEvents.maxSeq(other), 1, 'the other session\'s buffer was flushed by the window on its own');
});

t.test('reaching deltaMaxChars flushes without waiting for the window', async (t) => {
  const { store, bus, sessions, timers } = await busFixture(t, 1, { deltaMaxChars: 10 });
  const [s] = sessions;
  bus.pushDelta(s, chunk('12345'));
  bus.pushDelta(s, chunk('67890'));
  bus.pushDelta(s, chunk('x'));
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  t.strictSame(texts((await store.repos.sessionEvents.listRange(s, 0, 100, 100)).map((r) => ({ event: JSON.parse(r.payload) }))), ['1234567890x']);
  t.equal(timers.armed.size, 0, 'the window timer was cancelled once the buffer was taken');
});

t.test('interleaved deltas, events and window flushes: a late subscriber replays a gap-free, duplicate-free history', async (t) => {
  const { bus, sessions, timers } = await busFixture(t, 1);
  const [s] = sessions;
  const live = recorder();
  await bus.subscribe(s, null, live.listener);
  let text = '';
  for (let i = 0; i < 40; i++) {
    bus.pushDelta(s, chunk(`w${i} `));
    text += `w${i} `;
    if (i % 7 === 3) timers.fireAll();
    if (i % 10 === 9) await bus.emit(s, { type: 'file.added', executionId: 'e1', fileId: `f${i}`, name: 'out.csv', mediaType: 'text/csv', sizeBytes: 10 });
  }
  await bus.close();
  await settle(bus);
  const replay = recorder();
  await bus.subscribe(s, 0, replay.listener);
  await settle(bus);
  const max = live.events[live.events.length - 1].seq;
  t.strictSame(seqs(live.events), range(1, max), 'live: every seq once');
  t.strictSame(seqs(replay.events), range(1, max), 'replay: every seq once');
  t.strictSame(replay.events.map((e) => JSON.stringify(e.event)), live.events.map((e) => JSON.stringify(e.event)), 'replay equals what was sent live');
  t.equal(texts(live.events.filter((e) => e.event.type === 'message.delta')).join(''), text, 'no text lost or repeated');
  t.ok(live.events.length < 40, `40 chunks were coalesced into ${live.events.length} events`);
});

t.test('credential material never reaches the table or subscribers', async (t) => {
  const { store, bus, sessions } = await busFixture(t, 1);
  const [s] = sessions;
  const { mintSecret } = await import('../../../runtime/auth/secrets.js');
  const key = mintSecret('sv_');
  const watch = recorder();
  await bus.subscribe(s, null, watch.listener);
  bus.pushDelta(s, chunk(`your key is ${key}.`));
  // A careless caller passing extra fields: credential-named keys are redacted wherever they sit.
  const careless = { type: 'file.added', executionId: null, fileId: 'f', name: key, mediaType: 'text/plain', sizeBytes: 1, callerCredentials: { integrations: { crm: { token: 'tok-123' } } } };
  await bus.emit(s, careless as never);
  await settle(bus);
  const raw = (await store.repos.sessionEvents.listRange(s, 0, 100, 100)).map((r) => r.payload).join('\n');
  const sent = JSON.stringify(watch.events);
  for (const [where, text] of [['table', raw], ['subscriber', sent]] as const) {
    t.notOk(text.includes(key), `${where}: no service key`);
    t.notOk(text.includes('tok-123'), `${where}: no caller token`);
    t.ok(text.includes('[redacted]'), `${where}: redaction is visible`);
  }
});

t.test('the window timer asks for each session\'s flush in the async context of that session\'s own pushes', async (t) => {
  // On PostgreSQL a session's run is fenced through its async context: a flush run in another session's context
  // would be fenced by that session's lease (and refused once it is released).
  const { DeltaCoalescer } = await import('../../../runtime/events/delta-coalescer.js');
  const { AsyncLocalStorage } = await import('node:async_hooks');
  const context = new AsyncLocalStorage<string>();
  let fire: () => void = () => undefined;
  const seen: Array<[string, string | undefined]> = [];
  const coalescer = new DeltaCoalescer({
    windowMs: 50,
    maxChars: 4096,
    timers: { set: (run) => void (fire = run), clear: () => undefined },
    onDue: (ids) => ids.forEach((id) => seen.push([id, context.getStore()])),
  });
  context.run('run of A', () => coalescer.push('A', chunk('a')));
  context.run('run of B', () => coalescer.push('B', chunk('b')));
  context.run('unrelated', () => fire());
  t.strictSame(seen, [['A', 'run of A'], ['B', 'run of B']]);
});

t.test('a buffer whose flush was asked for is not asked again by later windows until that flush takes it', async (t) => {
  // Under load a flush may wait in the writer's queue longer than a window: each extra request was an empty unit.
  const { DeltaCoalescer } = await import('../../../runtime/events/delta-coalescer.js');
  let fire: (() => void) | null = null;
  const asked: string[] = [];
  const coalescer = new DeltaCoalescer({
    windowMs: 50,
    maxChars: 4096,
    timers: { set: (run) => void (fire = run), clear: () => void (fire = null) },
    onDue: (ids) => asked.push(...ids),
  });
  coalescer.push('A', chunk('a1'));
  fire!();
  coalescer.push('A', chunk('a2'));
  coalescer.push('B', chunk('b1'));
  fire!();
  t.strictSame(asked, ['A', 'B'], 'A asked once, B once');
  t.strictSame(coalescer.take('A').map((d) => d.text), ['a1a2'], 'the one flush takes everything A buffered');
  coalescer.push('A', chunk('a3'));
  fire!();
  t.strictSame(asked, ['A', 'B', 'A'], 'a new buffer after the take is asked for again');
});

/**
 * The bus's writer, with the next submit held and then refused as stale: what the PostgreSQL writer answers a flush
 * that queued behind its session's last unit and ran once the owner had released the lease (a race of timing there).
 */
function refusingNextSubmit(writer: import('../../../storage/port/unit.js').UnitWriter<any>) {
  let refuse!: () => void;
  let held = false;
  const stand = {
    ...writer,
    submit: (work: any, options?: any) => {
      if (held) return writer.submit(work, options);
      held = true;
      return new Promise((_resolve, reject) => (refuse = () => reject(new StaleLeaseError('session:s', 1))));
    },
  };
  return { writer: stand as typeof writer, refuse: () => refuse() };
}

t.test('a flush refused as stale after the owner\'s last append took its deltas is not reported; one with deltas left is', async (t) => {
  for (const appended of [true, false]) {
    const store = await openTestStore(t);
    const gate = refusingNextSubmit(store.store.writer);
    const { bus, sessions, timers, errors } = await busOver(store, 1, { writer: gate.writer });
    const [s] = sessions;
    bus.pushDelta(s, chunk('last words'));
    timers.fireAll(); // the window asks for a flush: its unit is submitted (and held)
    if (appended) await store.store.writer.submit((tx) => bus.append(tx, s, { type: 'session.changed', change: 'renamed' }));
    gate.refuse();
    await bus.flushDeltas();
    if (appended) {
      t.same(errors, [], 'nothing was lost: the append stored the deltas first');
      const rows = await store.store.repos.sessionEvents.listRange(s, 0, 100, 100);
      t.same(rows.map((r) => r.type), ['message.delta', 'session.changed']);
    } else {
      t.equal(errors.length, 1, 'deltas still buffered: the refusal is reported');
      t.type(errors[0], StaleLeaseError);
    }
  }
});
