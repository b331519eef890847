// Session streams across nodes on PostgreSQL: events committed on node A reach subscribers on node B in order, once each (issue 16 item 3).
import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ManualClock } from '../../../runtime/clock.js';
import { createSessionEventBus, type SessionEventBus, type SessionEventBusOptions } from '../../../runtime/events/event-bus.js';
import type { SessionEventEnvelope } from '../../../runtime/events/session-event.js';
import { newId } from '../../../runtime/ids.js';
import { openPostgresStorage, type PostgresStorage, type PostgresStorageOptions } from '../../../storage/postgres/storage.js';
import { Registry } from 'prom-client';
import { registerStreamFeedCounters } from '../../../runtime/telemetry/stream-feed-counters.js';
import { usePostgres } from '../../helpers/postgres.js';

const pg = await usePostgres(t);

interface Node {
  store: PostgresStorage;
  bus: SessionEventBus;
  errors: unknown[];
}

async function node(t: Test, url: string, name: string, options: Partial<SessionEventBusOptions> = {}, writer?: PostgresStorageOptions['writer']): Promise<Node> {
  const store = await openPostgresStorage({ url, applicationName: name, writer });
  const errors: unknown[] = [];
  const bus = createSessionEventBus({
    repo: store.repos.sessionEvents,
    writer: store.writer,
    clock: new ManualClock(Date.UTC(2026, 3, 1, 9)),
    signals: store.signals,
    onError: (error) => errors.push(error),
    ...options,
  });
  await bus.start();
  t.teardown(async () => {
    await bus.close();
    await store.close();
  });
  return { store, bus, errors };
}

async function seedSessions(store: PostgresStorage, count: number): Promise<string[]> {
  const [org, domain, agent] = [newId(), newId(), newId()];
  const ids = Array.from({ length: count }, () => newId());
  await store.pool.query('INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, 1)', [org, 'Org']);
  await store.pool.query('INSERT INTO domains (id, org_id, name, created_at) VALUES ($1, $2, $3, 1)', [domain, org, 'Domain']);
  await store.pool.query(`INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES ($1, $2, $3, 'agent', 'Agent', 1, 1)`, [agent, org, domain]);
  for (const id of ids) {
    await store.pool.query(`INSERT INTO sessions (id, org_id, domain_id, automation_id, visibility, created_at, updated_at) VALUES ($1, $2, $3, $4, 'domain', 1, 1)`, [id, org, domain, agent]);
  }
  return ids;
}

/** Everything a subscription delivered, in arrival order. */
function recorder() {
  const got: SessionEventEnvelope[] = [];
  return { got, listener: (batch: readonly SessionEventEnvelope[]) => void got.push(...batch) };
}

async function until(done: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const changed = { type: 'session.changed', change: 'renamed' } as const;
const seqs = (events: readonly SessionEventEnvelope[]) => events.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

t.test('a burst committed on both nodes reaches a subscriber on B in seq order with no gap or duplicate', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  // Transactions on two nodes that append to several sessions in opposite orders can deadlock (40P01): B runs one
  // unit (one session) per transaction, so it never waits on A while holding a key A needs. A's own batches in
  // flight never wait on each other (decision "PostgreSQL: concurrent event appends"), so A keeps the default writer.
  const a = await node(t, url, 'node-a');
  const b = await node(t, url, 'node-b', {}, { maxBatch: 1 });
  const sessions = await seedSessions(a.store, 5);
  const subs = await Promise.all(sessions.map(async (id) => ({ id, rec: recorder() })));
  for (const sub of subs) await b.bus.subscribe(sub.id, 0, sub.rec.listener);

  // 1,000 events from A and 250 from B, interleaved per session: B's own ones take the local fast path.
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 1250; i++) writes.push((i % 5 === 4 ? b : a).bus.emit(sessions[i % 5], changed));
  await Promise.all(writes);
  await until(() => subs.every((sub) => sub.rec.got.length >= 250), 'every event on B');
  await new Promise((resolve) => setTimeout(resolve, 100)); // room for a stray duplicate to show up
  for (const sub of subs) t.same(seqs(sub.rec.got), range(1, 250), `session ${sub.id}: 1..250 once each, in order`);
  const feed = b.bus.stats().feed!;
  t.ok(feed.signals >= 1000, 'B heard the commits');
  t.ok(feed.reads < 1000, `signals coalesced into fewer reads (${feed.reads})`);
  const registry = new Registry();
  registerStreamFeedCounters(registry, () => b.bus.stats().feed);
  const text = await registry.metrics();
  t.match(text, new RegExp(`^switchyard_stream_signals_total ${b.bus.stats().feed!.signals}$`, 'm'), '/metrics counts the signals');
  t.match(text, /^switchyard_stream_feed_events_total [1-9]\d*$/m, 'and the events the feed read');
  const sqlite = new Registry();
  registerStreamFeedCounters(sqlite, () => null);
  t.notMatch(await sqlite.metrics(), /switchyard_stream/, 'no feed (SQLite): no series');
  t.same([...a.errors, ...b.errors], []);
});

t.test('Last-Event-ID on node B resumes after events committed on node A, then follows it live', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const a = await node(t, url, 'node-a');
  const b = await node(t, url, 'node-b');
  const [session] = await seedSessions(a.store, 1);
  for (let i = 0; i < 10; i++) await a.bus.emit(session, changed);
  const rec = recorder();
  const sub = await b.bus.subscribe(session, 4, rec.listener);
  t.equal(sub.reset, null);
  for (let i = 0; i < 3; i++) await a.bus.emit(session, changed);
  await until(() => rec.got.length >= 9, 'replay and live events');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same(seqs(rec.got), range(5, 13));
});

t.test('a killed LISTEN connection resyncs: events committed while it was down are delivered, once each', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const a = await node(t, url, 'node-a');
  const b = await node(t, url, 'node-b');
  const sessions = await seedSessions(a.store, 2);
  const recs = sessions.map(() => recorder());
  for (const [i, id] of sessions.entries()) await b.bus.subscribe(id, null, recs[i].listener);
  for (const id of sessions) await a.bus.emit(id, changed);
  await until(() => recs.every((rec) => rec.got.length === 1), 'the first events');

  const killed = await a.store.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'node-b-listen'`);
  t.equal(killed.rowCount, 1, 'the listening connection of B was ended');
  // Committed in one unit once B noticed the loss, before its first reconnect attempt (100 ms later): B hears
  // nothing of them, and nothing is committed after them until they arrived, so only the resync can bring them.
  await until(() => b.errors.length >= 1, 'B noticing the lost connection');
  await a.store.writer.submit(async (tx) => {
    for (let i = 0; i < 20; i++) for (const id of sessions) await a.bus.append(tx, id, changed);
  });
  await until(() => b.bus.stats().feed!.resyncs >= 1, 'the resync');
  await until(() => recs.every((rec) => rec.got.length >= 21), 'the events from the outage');
  for (let i = 0; i < 2; i++) for (const id of sessions) await a.bus.emit(id, changed);
  await until(() => recs.every((rec) => rec.got.length >= 23), 'events after the resync');
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const rec of recs) t.same(seqs(rec.got), range(1, 23));
  t.ok(b.errors.length >= 1, 'the lost connection was reported');
});

t.test('nothing is delivered for a unit that rolled back; its seq goes to the next committed event', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const a = await node(t, url, 'node-a');
  const b = await node(t, url, 'node-b');
  const [session] = await seedSessions(a.store, 1);
  const rec = recorder();
  await b.bus.subscribe(session, null, rec.listener);
  const failed = a.store.writer.submit(async (tx) => {
    await a.bus.append(tx, session, { type: 'session.changed', change: 'archived' });
    throw new Error('the unit fails after appending');
  });
  await t.rejects(failed, /the unit fails/);
  await a.bus.emit(session, changed);
  await until(() => rec.got.length >= 1, 'the committed event');
  await new Promise((resolve) => setTimeout(resolve, 150));
  t.same(rec.got.map((e) => [e.seq, e.event.type, (e.event as { change?: string }).change]), [[1, 'session.changed', 'renamed']]);
});

t.test('an event committed on A while B registers its first subscriber still arrives (subscribe race)', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const a = await node(t, url, 'node-a');
  const [session] = await seedSessions(a.store, 1);
  await a.bus.emit(session, changed);
  let b: Node | undefined;
  const real = (await openRaceRepo(t, url)).sessionEvents;
  // B's bounds read answers, then A commits and B hears the signal before the session is watched on B: the
  // signal is dropped there, so only the read at the first subscription brings seq 2.
  b = await node(t, url, 'node-b', {
    repo: {
      ...real,
      bounds: async (id: string) => {
        const bounds = await real.bounds(id);
        const heard = b!.bus.stats().feed!.signals;
        await a.bus.emit(session, changed);
        await until(() => b!.bus.stats().feed!.signals > heard, 'the signal on B');
        return bounds;
      },
    },
  });
  const rec = recorder();
  const sub = await b.bus.subscribe(session, null, rec.listener);
  t.equal(sub.startSeq, 1, 'the subscription starts from what the bounds read saw');
  await until(() => rec.got.length >= 1, 'the event committed during subscribe');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same(seqs(rec.got), [2]);
});

t.test('events appended by another process reach a subscriber here in order, once each', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const b = await node(t, url, 'node-b');
  const sessions = await seedSessions(b.store, 4);
  const recs = sessions.map(() => recorder());
  for (const [i, id] of sessions.entries()) await b.bus.subscribe(id, null, recs[i].listener);
  const script = new URL('./emit-node.ts', import.meta.url).pathname;
  await promisify(execFile)(process.execPath, ['--import', 'tsx', script, url, '1000', ...sessions], { timeout: 60_000 });
  await until(() => recs.every((rec) => rec.got.length >= 250), "the other process's events");
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const rec of recs) t.same(seqs(rec.got), range(1, 250));
});

async function openRaceRepo(t: Test, url: string) {
  const store = await openPostgresStorage({ url, applicationName: 'race-reads' });
  t.teardown(() => store.close());
  return store.repos;
}
