// Timers across nodes on a real PostgreSQL (issue 16 item 4): two schedulers on one database deliver each timer once.
import t, { type Test } from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { createScheduler, type DueTimer, type Scheduler, type TimerHandler } from '../../../runtime/scheduler/index.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/storage.js';
import { usePostgres } from '../../helpers/postgres.js';
import { memoryLogger } from '../actors/job.fixture.js';

const pg = await usePostgres(t);
const T0 = Date.UTC(2026, 0, 1);
const TTL = 30_000;

interface Node {
  storage: PostgresStorage;
  scheduler: Scheduler;
  logger: ReturnType<typeof memoryLogger>;
}

async function node(t: Test, url: string, clock: ManualClock, name: string, concurrency = 16): Promise<Node> {
  const storage = await openPostgresStorage({ url, applicationName: `switchyard-${name}` });
  const logger = memoryLogger();
  const scheduler = createScheduler({ store: storage, clock, logger, nodeId: name, claimTtlMs: TTL, concurrency });
  t.teardown(async () => {
    scheduler.close();
    await storage.close();
  });
  return { storage, scheduler, logger };
}

/** Records the delivery, then commits markFired with an effect row (a timer of kind 'effect') in one unit. */
function recording(store: PostgresStorage, seen: DueTimer[], before: () => Promise<void> = async () => {}): TimerHandler {
  return async (timer, { markFired }) => {
    seen.push(timer);
    await before();
    await store.writer.submit(async (tx) => {
      await markFired(tx.repos);
      await tx.repos.timers.replace({ id: `effect-${timer.id}`, kind: 'effect', targetId: timer.targetId, dueAt: 0, payload: {}, createdAt: 0 });
    });
  };
}

async function scheduleMany(store: PostgresStorage, scheduler: Scheduler, count: number, dueAt: number): Promise<void> {
  await store.writer.submit(async (tx) => {
    for (let i = 0; i < count; i++) await scheduler.schedule(tx.repos, { kind: 'deadline', targetId: `x-${i}`, dueAt });
  });
}

/** Waits (at most 5 s of real time) for what another node's loop does over real round trips. */
async function until(done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5_000; !done() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
}

const counts = async (store: PostgresStorage) =>
  (await store.pool.query<{ fired: number; effects: number }>(
    "SELECT count(*) FILTER (WHERE kind = 'deadline' AND fired_at IS NOT NULL) AS fired, count(*) FILTER (WHERE kind = 'effect') AS effects FROM timers",
  )).rows[0]!;

t.test('200 due timers, two schedulers on one database: each delivered exactly once, the work shared', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const clock = new ManualClock(T0);
  const a = await node(t, url, clock, 'node-a');
  const b = await node(t, url, clock, 'node-b');
  const seenA: DueTimer[] = [];
  const seenB: DueTimer[] = [];
  a.scheduler.on('deadline', recording(a.storage, seenA));
  b.scheduler.on('deadline', recording(b.storage, seenB));
  await scheduleMany(a.storage, a.scheduler, 200, T0 - 1);

  const [fromA, fromB] = await Promise.all([a.scheduler.start(), b.scheduler.start()]);
  const ids = [...seenA, ...seenB].map((x) => x.targetId);
  t.equal(ids.length, 200, 'every handler ran once in all');
  t.equal(new Set(ids).size, 200, 'no timer ran on both nodes');
  t.equal(fromA + fromB, 200);
  t.ok(seenA.length >= 20 && seenB.length >= 20, `shared: node-a ${seenA.length}, node-b ${seenB.length}`);
  t.strictSame(await counts(a.storage), { fired: 200, effects: 200 }, 'fired once, one effect each');
  t.strictSame([...a.logger.lines, ...b.logger.lines], [], 'no handler failed (no unit met an already fired timer)');
});

t.test('a holder that dies with claimed timers: another node takes them over once the claims lapse; the late holder\'s units roll back', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const clock = new ManualClock(T0);
  const a = await node(t, url, clock, 'node-a');
  const b = await node(t, url, clock, 'node-b');
  // node-a claims and starts every handler, then hangs (as a process stalled in GC, or partitioned away) until released.
  let release!: () => void;
  const stalled = new Promise<void>((resolve) => (release = resolve));
  const seenA: DueTimer[] = [];
  a.scheduler.on('deadline', recording(a.storage, seenA, () => stalled));
  await scheduleMany(a.storage, a.scheduler, 10, T0);
  void a.scheduler.start();
  await until(() => seenA.length === 10);
  t.equal(seenA.length, 10, 'node-a runs all ten');

  const seenB: DueTimer[] = [];
  b.scheduler.on('deadline', recording(b.storage, seenB));
  t.equal(await b.scheduler.start(), 0, 'node-b takes nothing node-a holds');
  clock.advance(TTL - 1);
  t.equal(await b.scheduler.drain(), 0, 'not before the claims lapse');
  clock.advance(1);
  t.equal(await b.scheduler.drain(), 10, 'node-b takes over all ten at the lapse');
  t.strictSame(await counts(b.storage), { fired: 10, effects: 10 });

  // node-a wakes up late: each unit meets a fired timer, fails, and its effect rolls back.
  release();
  await a.scheduler.drain();
  t.equal(a.logger.lines.filter((l) => l.msg === 'timer handler failed; timer stays due').length, 10, 'each late unit failed');
  t.strictSame(await counts(a.storage), { fired: 10, effects: 10 }, 'still fired once, one effect each');
});
