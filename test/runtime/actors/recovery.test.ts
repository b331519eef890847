// Boot recovery: active snapshots are offered to their kind's handler, then due timers fire once.
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { createActorRegistry, createBootRecovery, type ActorFailure, type RecoveryOffer } from '../../../runtime/actors/index.js';
import { createScheduler } from '../../../runtime/scheduler/index.js';
import type { Storage } from '../../../storage/port/storage.js';
import { openTestStore } from '../../helpers/test-store.js';
import { JOB_VERSION, memoryLogger, jobMachine, tempDbPath, turn } from './job.fixture.js';

const T0 = Date.UTC(2026, 0, 1);

function boot(store: Storage, clock: ManualClock, version = JOB_VERSION) {
  const logger = memoryLogger();
  const failures: ActorFailure[] = [];
  const registry = createActorRegistry({ store, clock, logger });
  const jobs = registry.register('job', { machine: jobMachine, version, onFailure: (f) => void failures.push(f) });
  // A second kind whose owner needs no recovery (left as is, rehydrated on demand).
  const chores = registry.register('chore', { machine: jobMachine, version, onFailure: (f) => void failures.push(f) });
  const scheduler = createScheduler({ store, clock, logger });
  const recovery = createBootRecovery({ store, registry, scheduler, logger, pageSize: 2 });
  return { registry, jobs, chores, scheduler, recovery, failures, logger };
}

t.test('at boot every active actor is offered to its owner, which resumes or fails it; then due timers fire once', async (t) => {
  const path = tempDbPath(t);
  const clock = new ManualClock(T0);
  const before = await openTestStore(t, { path });
  const a = boot(before.store, clock);
  await a.jobs.spawn('queued-1', { jobId: 'queued-1' });
  await a.jobs.spawn('queued-2', { jobId: 'queued-2' });
  await a.jobs.spawn('running-1', { jobId: 'running-1' }, { event: { type: 'START', now: T0 } });
  await a.jobs.spawn('finished-1', { jobId: 'finished-1' }, { event: { type: 'START', now: T0 } });
  await a.jobs.transition('finished-1', { type: 'FINISH', now: T0 });
  await a.chores.spawn('chore-1', { jobId: 'chore-1' });
  await before.store.writer.submit((tx) => a.scheduler.schedule(tx.repos, { kind: 'job-timeout', targetId: 'queued-2', dueAt: T0 + 1_000 }));
  // A row of a kind this build no longer registers.
  await before.store.repos.snapshots.insert({ actorId: 'legacy-1', machine: 'legacy', machineVersion: 1, status: 'active', snapshot: '{}', updatedAt: T0 });
  a.registry.close();
  await a.scheduler.close();
  await before.close();

  clock.advance(60_000); // down past the timer
  const after = await openTestStore(t, { path });
  const b = boot(after.store, clock);
  t.teardown(() => (b.registry.close(), b.scheduler.close()));
  const offered: Array<{ id: string; value: unknown }> = [];
  const events: string[] = [];
  b.recovery.on('job', async (offer: RecoveryOffer) => {
    offered.push({ id: offer.id, value: offer.snapshot.value });
    events.push(`offer ${offer.id}`);
    // Queued work resumes; a running step is unsafe to retry, so it fails with the reason recorded.
    if (offer.snapshot.value === 'queued') await b.jobs.transition(offer.id, { type: 'START', now: clock.now() });
    else await b.jobs.transition(offer.id, { type: 'FAIL', now: clock.now(), reason: 'interrupted by restart' });
  });
  b.scheduler.on('job-timeout', async (timer, { markFired }) => {
    events.push(`timer ${timer.targetId}`);
    await b.jobs.transition(timer.targetId, { type: 'FAIL', now: clock.now(), reason: 'timeout' }, (_step, tx) => markFired(tx.repos));
  });

  const report = await b.recovery.run();
  t.same(offered.map((o) => o.id).sort(), ['queued-1', 'queued-2', 'running-1'], 'active job actors only, across pages');
  t.ok(offered.every((o) => o.value === 'queued' || o.value === 'running'));
  t.same(report, { offered: 3, kept: 1, unrestorable: 0, handlerFailures: 0, unregistered: { legacy: 1 }, timersFired: 1 });
  t.equal(events.at(-1), 'timer queued-2', 'timers fire after every offer was handled');
  t.equal((await b.jobs.peek('queued-1'))?.value, 'running', 'resumed');
  t.match((await b.jobs.peek('running-1')), { value: 'failed', context: { failure: 'interrupted by restart' } });
  t.match((await b.jobs.peek('queued-2')), { value: 'failed', context: { failure: 'timeout' } });
  t.equal((await b.chores.peek('chore-1'))?.value, 'queued', 'a kind without a handler is left as it is');
  t.match(b.logger.lines, [{ level: 'warn', obj: { unregistered: { legacy: 1 } } }]);
  await t.rejects(b.recovery.run(), /once/);
});

t.test('unrestorable snapshots are reported to their owner; a throwing handler is counted and logged', async (t) => {
  const { store } = await openTestStore(t);
  const clock = new ManualClock(T0);
  const a = boot(store, clock);
  await a.jobs.spawn('j-1', { jobId: 'j-1' });
  await a.chores.spawn('c-1', { jobId: 'c-1' });
  a.registry.close();
  await a.scheduler.close();

  const b = boot(store, clock, JOB_VERSION + 1);
  t.teardown(() => (b.registry.close(), b.scheduler.close()));
  b.recovery.on('job', () => {
    throw new Error('should not be offered');
  });
  b.recovery.on('chore', () => {
    throw new Error('owner bug');
  });
  t.throws(() => b.recovery.on('nope' as string, () => {}), /not registered/);
  const report = await b.recovery.run();
  t.match(report, { offered: 0, unrestorable: 2, handlerFailures: 0 });
  await turn();
  t.same(b.failures.map((f) => [f.id, f.reason.code]).sort(), [
    ['c-1', 'machine_version_mismatch'],
    ['j-1', 'machine_version_mismatch'],
  ]);

  const c = boot(store, clock);
  t.teardown(() => (c.registry.close(), c.scheduler.close()));
  c.recovery.on('chore', () => {
    throw new Error('owner bug');
  });
  const second = await c.recovery.run();
  t.match(second, { offered: 1, handlerFailures: 1, kept: 1 });
  t.match(c.logger.lines, [{ level: 'error', msg: 'boot recovery handler failed', obj: { actorId: 'c-1', err: 'owner bug' } }]);
});
