// Supervision: restart from the last snapshot under a bounded policy, then the owner's failure callback; passivation.
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { createActorRegistry, type ActorFailure } from '../../../runtime/actors/index.js';
import { JOB_VERSION, memoryLogger, openTestStore, providedJobMachine, turn } from './job.fixture.js';
import type { Store } from '../../../storage/store.js';

function setup(store: Store, options: { maxRestarts?: number; windowMs?: number; idleMs?: number } = {}) {
  const clock = new ManualClock();
  const failures: ActorFailure[] = [];
  const logger = memoryLogger();
  const registry = createActorRegistry({
    store,
    clock,
    logger,
    idleMs: options.idleMs ?? 60_000,
    restartPolicy: { maxRestarts: options.maxRestarts ?? 2, windowMs: options.windowMs ?? 10_000 },
  });
  const jobs = registry.register('job', { machine: providedJobMachine(), version: JOB_VERSION, onFailure: (f) => void failures.push(f) });
  return { registry, jobs, clock, failures, logger };
}

t.test('an actor whose action throws is restarted from its last persisted snapshot', async (t) => {
  const store = openTestStore(t);
  const { jobs, registry, clock, failures, logger } = setup(store);
  t.teardown(() => registry.close());
  await jobs.spawn('job-1', { jobId: 'job-1' });
  await jobs.transition('job-1', { type: 'START', now: clock.now() });
  const crashed = jobs.get('job-1')!;

  // BOOM commits (steps 2) and then its provided action throws in the live actor.
  const step = await jobs.transition('job-1', { type: 'BOOM', now: clock.now() });
  t.equal(step.snapshot.context.steps, 2, 'the step committed');
  t.equal(crashed.getSnapshot().status, 'error', 'the live actor errored (observed, so Node did not crash)');
  await turn();
  const restarted = jobs.get('job-1')!;
  t.not(restarted, crashed, 'a new actor');
  t.equal(restarted.getSnapshot().status, 'active');
  t.equal(restarted.getSnapshot().value, 'running');
  t.equal(restarted.getSnapshot().context.steps, 2, 'restored from the last persisted snapshot');
  t.equal(failures.length, 0, 'within the policy: no failure');
  t.match(logger.lines, [{ level: 'warn', msg: 'actor restarted from its snapshot', obj: { actorId: 'job-1', restart: 1 } }]);

  // The restarted actor keeps working.
  const done = await jobs.transition('job-1', { type: 'FINISH', now: clock.now() });
  t.equal(done.snapshot.value, 'finished');
});

t.test('past N restarts within the window the owner gets the reason, and the window slides', async (t) => {
  const store = openTestStore(t);
  const { jobs, registry, clock, failures } = setup(store, { maxRestarts: 2, windowMs: 10_000 });
  t.teardown(() => registry.close());
  await jobs.spawn('job-1', { jobId: 'job-1' });
  await jobs.transition('job-1', { type: 'START', now: clock.now() });

  for (let i = 1; i <= 2; i += 1) {
    await jobs.transition('job-1', { type: 'BOOM', now: clock.now() });
    await turn();
    t.equal(jobs.get('job-1')!.getSnapshot().status, 'active', `restart ${i} allowed`);
    clock.advance(1_000);
  }
  t.equal(failures.length, 0);
  await jobs.transition('job-1', { type: 'BOOM', now: clock.now() });
  await turn();
  t.equal(failures.length, 1, 'the third failure within 10 s exhausts a policy of 2 restarts');
  t.match(failures[0], { kind: 'job', id: 'job-1', at: clock.now(), reason: { code: 'restarts_exhausted', restarts: 2, windowMs: 10_000, error: 'kaboom' } });
  t.equal(registry.residentCount, 0, 'the failed actor is dropped, not restarted');

  // The owner records the failure by driving the actor to its failed state (rehydrated from its snapshot).
  const failed = await jobs.transition('job-1', { type: 'FAIL', now: clock.now(), reason: failures[0].reason.code });
  t.equal(failed.snapshot.value, 'failed');
  t.equal(store.repos.snapshots.get('job-1')?.status, 'done');
  t.match(JSON.parse(store.repos.snapshots.get('job-1')!.snapshot), { context: { failure: 'restarts_exhausted', steps: 4 } });

  // Failures older than the window no longer count.
  await jobs.spawn('job-2', { jobId: 'job-2' });
  await jobs.transition('job-2', { type: 'START', now: clock.now() });
  for (let i = 0; i < 2; i += 1) {
    await jobs.transition('job-2', { type: 'BOOM', now: clock.now() });
    await turn();
  }
  clock.advance(10_001);
  await jobs.transition('job-2', { type: 'BOOM', now: clock.now() });
  await turn();
  t.equal(failures.length, 1, 'after the window the count starts over');
  t.equal(jobs.get('job-2')!.getSnapshot().status, 'active');
});

t.test('idle actors are passivated on the injected clock and rehydrated on demand', async (t) => {
  const store = openTestStore(t);
  const { jobs, registry, clock } = setup(store, { idleMs: 60_000 });
  t.teardown(() => registry.close());
  for (const id of ['a', 'b', 'c']) await jobs.spawn(id, { jobId: id });
  t.equal(registry.residentCount, 3);

  clock.advance(59_999);
  t.equal(registry.residentCount, 3, 'not idle yet');
  await jobs.transition('b', { type: 'START', now: clock.now() });
  clock.advance(2);
  t.equal(registry.residentCount, 1, 'a and c passivated, b was used');
  t.equal(jobs.get('b')!.getSnapshot().value, 'running');

  const a = jobs.get('a');
  t.equal(a!.getSnapshot().value, 'queued', 'rehydrated on demand');
  t.equal(registry.residentCount, 2);
  clock.advance(60_001);
  t.equal(registry.residentCount, 0);
  t.equal(registry.passivateIdle(), 0, 'nothing left to drop');
});

t.test('an actor with a step in flight is not passivated', async (t) => {
  const store = openTestStore(t);
  const { jobs, registry, clock } = setup(store, { idleMs: 1_000 });
  t.teardown(() => registry.close());
  await jobs.spawn('a', { jobId: 'a' });
  clock.advance(500);
  const pending = jobs.transition('a', { type: 'START', now: clock.now() }, () => {
    clock.advance(5_000); // the sweep runs while this step's unit of work is inside the transaction
    return registry.residentCount;
  });
  t.equal(await pending, 1, 'still resident while its step was in flight');
  t.equal(jobs.get('a')!.getSnapshot().value, 'running');
});
