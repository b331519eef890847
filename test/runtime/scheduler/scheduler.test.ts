// Durable timers: delivery on clock advance, cancel/replace, exactly once across restarts, retry after failure.
import t from 'tap';
import { ManualClock, type Clock } from '../../../runtime/clock.js';
import { createScheduler, type DueTimer, type Scheduler, type TimerHandler } from '../../../runtime/scheduler/index.js';
import { createActorRegistry } from '../../../runtime/actors/index.js';
import type { Storage } from '../../../storage/port/storage.js';
import { openTestStore } from '../../helpers/test-store.js';
import { JOB_VERSION, memoryLogger, jobMachine, tempDbPath, until } from '../actors/job.fixture.js';

const T0 = Date.UTC(2026, 0, 1);

/** One process on its database: the sole scheduler (a crashed predecessor's claims are dropped at start). */
function setup(store: Storage, clock: Clock = new ManualClock(T0), sole = true) {
  const logger = memoryLogger();
  const scheduler = createScheduler({ store, clock, logger, retry: { baseMs: 1_000, maxMs: 8_000 }, sole, claimTtlMs: 30_000 });
  return { scheduler, logger, clock };
}

/** A handler that records deliveries and commits "fired" with an effect row of its own. */
function recording(store: Storage, seen: DueTimer[]): TimerHandler {
  return async (timer, { markFired }) => {
    seen.push(timer);
    await store.writer.submit(async (tx) => {
      await markFired(tx.repos);
      await tx.repos.timers.replace({ id: `effect-${timer.id}`, kind: 'effect', targetId: timer.targetId, dueAt: 0, payload: {}, createdAt: 0 });
    });
  };
}

/** A 'deadline' handler that never ends, as in a process that dies mid-delivery; resolves once it started. */
function hangingHandler(scheduler: Scheduler): Promise<void> {
  return new Promise((resolve) => scheduler.on('deadline', () => (resolve(), new Promise<void>(() => {}))));
}

t.test('a timer is delivered when the manual clock reaches its due time, and marked fired', async (t) => {
  const { store } = await openTestStore(t);
  const clock = new ManualClock(T0);
  const { scheduler } = setup(store, clock);
  t.teardown(() => scheduler.close());
  const seen: DueTimer[] = [];
  scheduler.on('claim-expiry', recording(store, seen));
  t.equal(await scheduler.start(), 0);

  const id = await store.writer.submit((tx) => scheduler.schedule(tx.repos, { kind: 'claim-expiry', targetId: 'claim-1', dueAt: T0 + 1_000, payload: { key: 'k' } }));
  clock.advance(999);
  t.equal(await scheduler.drain(), 0, 'not due yet');
  clock.advance(1);
  t.equal(await scheduler.drain(), 1);
  t.match(seen, [{ id, kind: 'claim-expiry', targetId: 'claim-1', dueAt: T0 + 1_000, payload: { key: 'k' }, attempt: 1 }]);
  t.equal((await store.repos.timers.get(id))?.firedAt, T0 + 1_000);
  t.ok(await store.repos.timers.pending('effect', 'claim-1'), 'the handler effects committed with it');
  clock.advance(10_000);
  t.equal(await scheduler.drain(), 0, 'never again');
  t.equal(seen.length, 1);
});

t.test('advancing the clock delivers without drain(): the clock change itself wakes the scheduler', async (t) => {
  const { store } = await openTestStore(t);
  const clock = new ManualClock(T0);
  const { scheduler } = setup(store, clock);
  t.teardown(() => scheduler.close());
  let resolveSeen!: (timer: DueTimer) => void;
  const seen = new Promise<DueTimer>((resolve) => (resolveSeen = resolve));
  scheduler.on('lease', (timer) => resolveSeen(timer));
  await scheduler.start();
  await store.writer.submit((tx) => scheduler.schedule(tx.repos, { kind: 'lease', targetId: 'l-1', dueAt: T0 + 5 }));
  clock.advance(5);
  t.match(await seen, { targetId: 'l-1' });
  await scheduler.drain();
  t.equal(await store.repos.timers.pending('lease', 'l-1'), undefined, 'fired by the scheduler when the handler had no unit of its own');
});

t.test('a timer already due when its unit commits fires after that commit', async (t) => {
  const { store } = await openTestStore(t);
  const clock = new ManualClock(T0);
  const { scheduler } = setup(store, clock);
  t.teardown(() => scheduler.close());
  const seen: DueTimer[] = [];
  scheduler.on('now', recording(store, seen));
  await scheduler.start();
  await store.writer.submit((tx) => scheduler.schedule(tx.repos, { kind: 'now', targetId: 'x', dueAt: T0 - 1 }));
  // The poke after the commit reads, then claims in a unit of its own: a few loop turns (round trips on PostgreSQL),
  // no clock move, no drain().
  await until(() => seen.length > 0);
  t.equal(seen.length, 1, 'delivered without moving the clock');
});

t.test('cancel removes the pending timer; scheduling again replaces it', async (t) => {
  const { store } = await openTestStore(t);
  const clock = new ManualClock(T0);
  const { scheduler } = setup(store, clock);
  t.teardown(() => scheduler.close());
  const seen: DueTimer[] = [];
  scheduler.on('expiry', recording(store, seen));
  await scheduler.start();

  await store.writer.submit((tx) => scheduler.schedule(tx.repos, { kind: 'expiry', targetId: 'a', dueAt: T0 + 100 }));
  t.equal(await store.writer.submit((tx) => scheduler.cancel(tx.repos, 'expiry', 'a')), true);
  t.equal(await store.writer.submit((tx) => scheduler.cancel(tx.repos, 'expiry', 'a')), false, 'nothing left to cancel');

  await store.writer.submit((tx) => scheduler.schedule(tx.repos, { kind: 'expiry', targetId: 'b', dueAt: T0 + 100, payload: { v: 1 } }));
  await store.writer.submit((tx) => scheduler.schedule(tx.repos, { kind: 'expiry', targetId: 'b', dueAt: T0 + 300, payload: { v: 2 } }));
  clock.advance(200);
  t.equal(await scheduler.drain(), 0, 'cancelled and replaced timers do not fire');
  clock.advance(100);
  t.equal(await scheduler.drain(), 1);
  t.match(seen, [{ targetId: 'b', payload: { v: 2 } }]);

  // A cancel rolled back with its unit leaves the timer in place.
  await store.writer.submit((tx) => scheduler.schedule(tx.repos, { kind: 'expiry', targetId: 'c', dueAt: T0 + 1_000 }));
  await t.rejects(store.writer.submit(async (tx) => { await scheduler.cancel(tx.repos, 'expiry', 'c'); throw new Error('rollback'); }));
  t.ok(await store.repos.timers.pending('expiry', 'c'));
});

t.test('a failing handler leaves the timer due; it is retried after the backoff', async (t) => {
  const { store } = await openTestStore(t);
  const clock = new ManualClock(T0);
  const { scheduler, logger } = setup(store, clock);
  t.teardown(() => scheduler.close());
  const attempts: number[] = [];
  scheduler.on('flaky', async (timer, { markFired }) => {
    attempts.push(timer.attempt);
    await store.writer.submit(async (tx) => {
      await markFired(tx.repos);
      if (timer.attempt < 3) throw new Error(`attempt ${timer.attempt} failed`);
    });
  });
  await scheduler.start();
  const id = await store.writer.submit((tx) => scheduler.schedule(tx.repos, { kind: 'flaky', targetId: 't', dueAt: T0 }));
  t.equal(await scheduler.drain(), 0);
  t.same(attempts, [1]);
  t.equal((await store.repos.timers.get(id))?.firedAt, null, 'still due: its "fired" rolled back with the failed effects');
  t.match(logger.lines, [{ level: 'warn', msg: 'timer handler failed; timer stays due', obj: { timerId: id, attempt: 1 } }]);

  clock.advance(999);
  await scheduler.drain();
  t.same(attempts, [1], 'not before the backoff');
  clock.advance(1);
  await scheduler.drain();
  t.same(attempts, [1, 2]);
  clock.advance(2_000);
  t.equal(await scheduler.drain(), 1);
  t.same(attempts, [1, 2, 3]);
  t.equal((await store.repos.timers.get(id))?.firedAt, T0 + 3_000);
});

t.test('timers fire exactly once across restarts, including those due while the process was down', async (t) => {
  const path = tempDbPath(t);
  const clock = new ManualClock(T0);

  const first = await openTestStore(t, { path });
  const a = setup(first.store, clock);
  await a.scheduler.start();
  await first.store.writer.submit(async (tx) => {
    await a.scheduler.schedule(tx.repos, { kind: 'deadline', targetId: 'due-while-down', dueAt: T0 + 1_000 });
    await a.scheduler.schedule(tx.repos, { kind: 'deadline', targetId: 'later', dueAt: T0 + 60_000 });
  });
  await a.scheduler.close();
  await first.close();

  clock.advance(5_000); // the process is down past the first deadline

  const second = await openTestStore(t, { path });
  const b = setup(second.store, clock);
  const seen: DueTimer[] = [];
  b.scheduler.on('deadline', recording(second.store, seen));
  t.equal(await b.scheduler.start(), 1, 'the missed deadline fires at boot');
  t.match(seen, [{ targetId: 'due-while-down' }]);
  await b.scheduler.close();
  await second.close();

  const third = await openTestStore(t, { path });
  const c = setup(third.store, clock);
  const again: DueTimer[] = [];
  c.scheduler.on('deadline', recording(third.store, again));
  t.equal(await c.scheduler.start(), 0, 'a fired timer does not fire again after a restart');
  clock.advance(55_000);
  t.equal(await c.scheduler.drain(), 1);
  t.match(again, [{ targetId: 'later' }]);
  await c.scheduler.close();
});

t.test('a handler whose unit did not commit before a crash is redelivered at boot', async (t) => {
  const path = tempDbPath(t);
  const clock = new ManualClock(T0);
  const first = await openTestStore(t, { path });
  const a = setup(first.store, clock);
  await first.store.writer.submit((tx) => a.scheduler.schedule(tx.repos, { kind: 'deadline', targetId: 'x', dueAt: T0 }));
  // Simulates a crash mid-delivery: the handler starts but the process dies before its unit commits. (Its close
  // is not awaited: it would wait for that handler.)
  const started = hangingHandler(a.scheduler);
  void a.scheduler.start();
  await started;
  void a.scheduler.close();
  await first.close();

  const second = await openTestStore(t, { path });
  const b = setup(second.store, clock);
  const seen: DueTimer[] = [];
  b.scheduler.on('deadline', recording(second.store, seen));
  t.equal(await b.scheduler.start(), 1);
  t.equal(seen.length, 1);
  await b.scheduler.close();
});

t.test('not sole (a shared database): a dead holder\'s claimed timer is taken over once its claim lapses', async (t) => {
  const path = tempDbPath(t);
  const clock = new ManualClock(T0);
  const first = await openTestStore(t, { path });
  const a = setup(first.store, clock, false);
  await first.store.writer.submit((tx) => a.scheduler.schedule(tx.repos, { kind: 'deadline', targetId: 'x', dueAt: T0 }));
  const started = hangingHandler(a.scheduler);
  void a.scheduler.start();
  await started; // a handler runs only what its scheduler's claim committed
  t.equal((await first.store.repos.timers.pending('deadline', 'x'))?.claimExpiresAt, T0 + 30_000, 'claimed by the first scheduler');
  void a.scheduler.close();
  await first.close();

  const second = await openTestStore(t, { path });
  const b = setup(second.store, clock, false);
  const seen: DueTimer[] = [];
  b.scheduler.on('deadline', recording(second.store, seen));
  t.equal(await b.scheduler.start(), 0, 'held by the dead holder: not taken before the claim lapses');
  clock.advance(29_999);
  t.equal(await b.scheduler.drain(), 0);
  clock.advance(1);
  t.equal(await b.scheduler.drain(), 1, 'taken over at the lapse');
  t.equal(seen.length, 1);
  t.equal((await second.store.repos.timers.get(seen[0]!.id))?.firedAt, T0 + 30_000);
  await b.scheduler.close();
});

t.test('a deadline drives an actor: fired commits with the transition that handles it', async (t) => {
  const { store } = await openTestStore(t);
  const clock = new ManualClock(T0);
  const { scheduler } = setup(store, clock);
  const registry = createActorRegistry({ store, clock, logger: memoryLogger() });
  t.teardown(() => (registry.close(), scheduler.close()));
  const jobs = registry.register('job', { machine: jobMachine, version: JOB_VERSION, onFailure: () => {} });
  scheduler.on('job-timeout', async (timer, { markFired }) => {
    await jobs.transition(timer.targetId, { type: 'FAIL', now: clock.now(), reason: 'timeout' }, (_step, tx) => markFired(tx.repos));
  });
  await scheduler.start();
  await jobs.spawn('job-1', { jobId: 'job-1' }, {
    event: { type: 'START', now: clock.now() },
    effects: (_step, tx) => scheduler.schedule(tx.repos, { kind: 'job-timeout', targetId: 'job-1', dueAt: T0 + 30_000 }),
  });
  t.ok(await store.repos.timers.pending('job-timeout', 'job-1'), 'the deadline committed with the spawn');
  clock.advance(30_000);
  t.equal(await scheduler.drain(), 1);
  t.equal((await jobs.peek('job-1'))?.value, 'failed');
  t.equal(await store.repos.timers.pending('job-timeout', 'job-1'), undefined);
});

t.test('with a non-manual clock a single timeout wakes the loop at the due time', async (t) => {
  const { store } = await openTestStore(t);
  let now = T0;
  const clock = { now: () => now };
  const { scheduler } = setup(store, clock);
  t.teardown(() => scheduler.close());
  let resolveSeen!: (timer: DueTimer) => void;
  const seen = new Promise<DueTimer>((resolve) => (resolveSeen = resolve));
  scheduler.on('tick', (timer) => resolveSeen(timer));
  await scheduler.start();
  await store.writer.submit((tx) => scheduler.schedule(tx.repos, { kind: 'tick', targetId: 'x', dueAt: T0 + 1 }));
  now = T0 + 1; // the clock moves without telling anyone; the armed 1 ms timeout finds the timer due
  t.match(await seen, { targetId: 'x' });
});
