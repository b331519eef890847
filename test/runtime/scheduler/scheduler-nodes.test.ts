// Timers across nodes on a real PostgreSQL (issue 16 item 4): two schedulers on one database deliver each timer once.
import t, { type Test } from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { createScheduler, type DueTimer, type Scheduler, type TimerHandler } from '../../../runtime/scheduler/index.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/storage.js';
import { DEFAULT_CONFIG } from '../../../runtime/config.js';
import { createLogger } from '../../../runtime/logger.js';
import { createRuntime, type Runtime } from '../../../runtime/runtime.js';
import { sealSecret, sealedSecretAad } from '../../../runtime/vault/sealed-secret.js';
import { mintSigningSecret } from '../../../runtime/webhooks/standard-webhooks.js';
import type { KeyRing } from '../../../runtime/vault/index.js';
import { usePostgres } from '../../helpers/postgres.js';
import { organization } from '../../storage/contract/seed.js';
import { testKeyRing } from '../manifest/manifest-fixtures.js';
import { startRecordingUpstream } from '../tools/recording-upstream.js';
import { memoryLogger, until } from '../actors/job.fixture.js';

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
    await scheduler.close();
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
  t.equal(new Set(ids).size, 200, 'every timer ran');
  const onB = new Set(seenB.map((x) => x.targetId));
  t.equal(seenA.filter((x) => onB.has(x.targetId)).length, 0, 'no timer ran on both nodes');
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

/** A whole runtime (service minus HTTP) on its own pool: what one node of a cluster runs. */
async function runtimeNode(t: Test, url: string, clock: ManualClock, keyRing: KeyRing, name: string): Promise<{ storage: PostgresStorage; runtime: Runtime; warnings: string[] }> {
  const storage = await openPostgresStorage({ url, applicationName: `switchyard-${name}` });
  const config = { ...DEFAULT_CONFIG, webhooksAllowPrivateNetworks: true };
  // The node's log at warn: a handler that ran on both nodes shows up as a failed unit here.
  const warnings: string[] = [];
  const runtime = createRuntime({ config, clock, logger: createLogger('warn', { write: (line: string) => void warnings.push(line) }), store: storage, keyRing });
  t.teardown(async () => {
    await runtime.stop();
    await storage.close();
  });
  return { storage, runtime, warnings };
}

async function seedOrg(storage: PostgresStorage): Promise<void> {
  await storage.repos.tenancy.insertOrganization(organization('org-1'));
  await storage.repos.tenancy.insertDomain({ id: 'dom-1', orgId: 'org-1', name: 'dom-1', approvalPolicy: {}, createdAt: T0 });
}

t.test('a schedule trigger\'s tick fires once with two nodes running, including a slot due while one node was down', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const clock = new ManualClock(T0);
  const keyRing = testKeyRing();
  const a = await runtimeNode(t, url, clock, keyRing, 'node-a');
  await seedOrg(a.storage);
  await a.storage.repos.triggers.insertTrigger({
    id: 'trg-s', orgId: 'org-1', domainId: 'dom-1', type: 'schedule', name: 'Every 5 minutes', active: true,
    config: { cron: '*/5 * * * *', timezone: null, input: {} }, endpointSecretSealed: null, createdBy: null, createdAt: T0,
  });
  const b = await runtimeNode(t, url, clock, keyRing, 'node-b');
  await Promise.all([a.runtime.start(), b.runtime.start()]);
  const runs = async () => (await a.storage.pool.query<{ n: number }>("SELECT count(*) AS n FROM trigger_runs WHERE trigger_id = 'trg-s' AND source = 'schedule'")).rows[0]!.n;
  t.equal(await runs(), 0, 'armed, not due');

  clock.advance(5 * 60_000);
  await Promise.all([a.runtime.services.scheduler.drain(), b.runtime.services.scheduler.drain()]);
  t.equal(await runs(), 1, 'the slot fired once between the two nodes');

  // node-b goes down; the next slot falls due while it is away: node-a alone fires it, once.
  await b.runtime.stop();
  clock.advance(5 * 60_000);
  await a.runtime.services.scheduler.drain();
  t.equal(await runs(), 2, 'the slot due while node-b was down fired once on node-a');
  t.equal((await a.storage.repos.timers.pending('schedule-tick', 'trg-s'))?.dueAt, T0 + 15 * 60_000, 'the next slot is armed');
  t.strictSame([...a.warnings, ...b.warnings].filter((line) => line.includes('timer handler failed')), [], 'each tick\'s handler ran on one node only');
});

t.test('a webhook attempt is posted once to its receiver with two nodes running', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const receiver = await startRecordingUpstream();
  t.teardown(() => receiver.close());
  receiver.respond((_request, res) => {
    res.writeHead(204);
    res.end();
  });
  // Near real time, so the signature's timestamp is current.
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  const keyRing = testKeyRing();
  const a = await runtimeNode(t, url, clock, keyRing, 'node-a');
  const b = await runtimeNode(t, url, clock, keyRing, 'node-b');
  await seedOrg(a.storage);
  await Promise.all([a.runtime.start(), b.runtime.start()]);
  const endpointId = 'wh-1';
  await a.storage.repos.webhooks.insertEndpoint({
    id: endpointId, orgId: 'org-1', url: `${receiver.baseUrl}/hooks`, events: ['trigger.run.completed'], active: true, createdBy: null, createdAt: clock.now(),
    secretSealed: sealSecret(keyRing, mintSigningSecret(), sealedSecretAad.webhookEndpoint('org-1', endpointId)),
  });

  const ids = await a.storage.writer.submit((tx) => a.runtime.services.webhookDeliveries.enqueue(tx.repos, 'org-1', 'trigger.run.completed', '{"n":1}', null));
  t.equal(ids.length, 1);
  // Both nodes see the due attempt at once (each pokes on the clock change).
  clock.advance(1);
  await Promise.all([a.runtime.services.scheduler.drain(), b.runtime.services.scheduler.drain()]);
  await until(() => receiver.received.length > 0);
  await Promise.all([a.runtime.services.scheduler.drain(), b.runtime.services.scheduler.drain()]);
  t.equal(receiver.received.length, 1, 'one POST');
  t.equal(receiver.received[0]!.headers['webhook-id'], ids[0], 'the delivery\'s id');
  t.match(await a.storage.repos.webhooks.delivery(ids[0]!), { status: 'delivered', attempts: 1, lastStatus: 204 });
});
