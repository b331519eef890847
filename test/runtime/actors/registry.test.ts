// Actor registry: snapshot row round trip, step + effect rows in one transaction, versions, settle, concurrency.
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { ActorFailureError, createActorRegistry, type ActorFailure } from '../../../runtime/actors/index.js';
import type { PortRepositories, Storage } from '../../../storage/port/storage.js';
import { openTestStore } from '../../helpers/test-store.js';
import { JOB_VERSION, memoryLogger, jobMachine, tempDbPath, turn, type JobEvent } from './job.fixture.js';

function setup(store: Storage, clock = new ManualClock(), version = JOB_VERSION) {
  const failures: ActorFailure[] = [];
  const settled: string[] = [];
  const logger = memoryLogger();
  const registry = createActorRegistry({ store, clock, logger });
  const jobs = registry.register('job', {
    machine: jobMachine,
    version,
    onFailure: (failure) => void failures.push(failure),
    onSettled: ({ id }) => void settled.push(id),
  });
  return { registry, jobs, failures, settled, clock, logger };
}

/** An effect row of the step, in its unit (`tx.repos`): a timer keyed by the job (any real table does; timers is ours). */
async function effectRow(repos: Pick<PortRepositories, 'timers'>, jobId: string, now: number): Promise<void> {
  await repos.timers.replace({ id: `timer-${jobId}-${now}`, kind: 'job-deadline', targetId: jobId, dueAt: now + 1000, payload: {}, createdAt: now });
}

t.test('spawn, transition and rehydrate round trip through the persisted snapshot', async (t) => {
  const path = tempDbPath(t);
  const clock = new ManualClock();
  const first = await openTestStore(t, { path });
  const a = setup(first.store, clock);
  const spawned = await a.jobs.spawn('job-1', { jobId: 'job-1' });
  t.equal(spawned.snapshot.value, 'queued');
  t.equal(spawned.before, null);
  const step = await a.jobs.transition('job-1', { type: 'START', now: clock.now() });
  t.equal(step.snapshot.value, 'running');
  t.same(step.emitted, [{ type: 'job.started', jobId: 'job-1', at: clock.now() }], 'emitted events reach the step');

  const row = await first.store.repos.snapshots.get('job-1');
  t.match(row, { machine: 'job', machineVersion: JOB_VERSION, status: 'active' });
  t.match(JSON.parse(row!.snapshot), { value: 'running', context: { jobId: 'job-1', steps: 1, startedAt: clock.now() } });
  a.registry.close();
  await first.close();

  // A new process on the same database: the actor comes back from its snapshot, not from its input.
  const second = await openTestStore(t, { path });
  const b = setup(second.store, clock);
  t.equal(b.registry.residentCount, 0);
  const restored = (await b.jobs.peek('job-1'));
  t.ok(restored, 'read back from its row');
  t.equal(restored!.value, 'running');
  t.equal(restored!.context.startedAt, clock.now());
  t.equal(b.registry.residentCount, 0, 'reading does not make it resident');
  t.equal((await b.jobs.peek('missing')), undefined, 'no row, no actor');

  const finished = await b.jobs.transition('job-1', { type: 'FINISH', now: clock.now() });
  t.equal(finished.snapshot.status, 'done');
  t.equal((await second.store.repos.snapshots.get('job-1'))?.status, 'done', 'final state persists as status done');
  t.same(b.settled, ['job-1'], 'onSettled after commit');
  t.equal(b.registry.residentCount, 0, 'a settled actor leaves memory');
  t.equal((await b.jobs.peek('job-1'))?.value, 'finished', 'and can still be read');
  b.registry.close();
});

t.test('the snapshot commits in the same transaction as the effect rows', async (t) => {
  const { store } = await openTestStore(t);
  const { jobs, registry, clock } = setup(store);
  t.teardown(() => registry.close());
  await jobs.spawn('job-1', { jobId: 'job-1' });
  const before = (await store.repos.snapshots.get('job-1'))!.snapshot;

  await t.rejects(
    jobs.transition('job-1', { type: 'START', now: clock.now() }, async (step, tx) => {
      t.equal(step.snapshot.value, 'running', 'effects see the next state');
      await effectRow(tx.repos, 'job-1', clock.now());
      throw new Error('refused');
    }),
    { message: 'refused' },
  );
  t.equal(await store.repos.timers.pending('job-deadline', 'job-1'), undefined, 'the effect row rolled back');
  t.equal((await store.repos.snapshots.get('job-1'))!.snapshot, before, 'the snapshot did not change');
  t.equal((await jobs.peek('job-1'))!.value, 'queued', 'the resident snapshot did not move');

  const value = await jobs.transition('job-1', { type: 'START', now: clock.now() }, async (step, tx) => {
    await effectRow(tx.repos, 'job-1', clock.now());
    return `now ${String(step.snapshot.value)}`;
  });
  t.equal(value, 'now running', 'the effects value is the answer');
  t.ok(await store.repos.timers.pending('job-deadline', 'job-1'), 'effect row committed');
  t.match(JSON.parse((await store.repos.snapshots.get('job-1'))!.snapshot), { value: 'running' }, 'with the snapshot');
  t.equal((await jobs.peek('job-1'))!.value, 'running');
});

t.test('an ignored event writes no snapshot and effects see changed=false', async (t) => {
  const { store } = await openTestStore(t);
  const { jobs, registry, clock } = setup(store);
  t.teardown(() => registry.close());
  await jobs.spawn('job-1', { jobId: 'job-1' });
  clock.advance(5);
  const step = await jobs.transition('job-1', { type: 'FINISH', now: clock.now() });
  t.equal(step.changed, false);
  t.equal(step.snapshot.value, 'queued');
  t.not((await store.repos.snapshots.get('job-1'))!.updatedAt, clock.now(), 'row untouched');
});

t.test('transact commits steps of several actors with their rows, or none of them', async (t) => {
  const { store } = await openTestStore(t);
  const { registry, jobs, clock } = setup(store);
  t.teardown(() => registry.close());
  await jobs.spawn('job-1', { jobId: 'job-1' });
  const moves = [
    { kind: 'job', id: 'job-1', event: { type: 'START', now: clock.now() } as JobEvent },
    { kind: 'job', id: 'job-2', input: { jobId: 'job-2' }, event: { type: 'START', now: clock.now() } as JobEvent },
  ];
  await t.rejects(registry.transact(moves, () => { throw new Error('no'); }));
  t.equal(await store.repos.snapshots.get('job-2'), undefined, 'spawn rolled back');
  t.equal((await jobs.peek('job-1'))!.value, 'queued');
  t.equal((await jobs.peek('job-2')), undefined);

  const values = await registry.transact(moves, (steps) => steps.map((s) => `${s.id}:${String(s.snapshot.value)}`));
  t.same(values, ['job-1:running', 'job-2:running']);
  t.equal((await jobs.peek('job-2'))!.value, 'running');
  await t.rejects(registry.transact([moves[0], moves[0]], () => 0), /One step per actor/);
});

t.test('spawning an existing id is a CONFLICT; an unknown id is NOT_FOUND', async (t) => {
  const { store } = await openTestStore(t);
  const { jobs, registry, clock } = setup(store);
  t.teardown(() => registry.close());
  await jobs.spawn('job-1', { jobId: 'job-1' });
  await t.rejects(jobs.spawn('job-1', { jobId: 'job-1' }), { code: 'CONFLICT' });
  clock.advance(10 * 60_000); // passivates: the ManualClock sweep runs on change
  t.equal(registry.residentCount, 0);
  await t.rejects(jobs.spawn('job-1', { jobId: 'job-1' }), { code: 'CONFLICT' }, 'also when only the row exists');
  await t.rejects(jobs.transition('nope', { type: 'START', now: 0 }), { code: 'NOT_FOUND' });
});

t.test('steps of one actor are serialized: concurrent events all apply, in order', async (t) => {
  const { store } = await openTestStore(t);
  const { jobs, registry, clock } = setup(store);
  t.teardown(() => registry.close());
  await jobs.spawn('job-1', { jobId: 'job-1' });
  const results = await Promise.all([
    jobs.transition('job-1', { type: 'START', now: clock.now() }),
    jobs.transition('job-1', { type: 'BOOM', now: clock.now() }),
    jobs.transition('job-1', { type: 'FINISH', now: clock.now() }),
  ]);
  t.same(results.map((s) => s.snapshot.value), ['running', 'running', 'finished']);
  t.same(results.map((s) => s.changed), [true, true, true]);
  t.match(JSON.parse((await store.repos.snapshots.get('job-1'))!.snapshot), { value: 'finished', context: { steps: 2 } });
  t.equal((await registry.peek('job', 'job-1'))?.value, 'finished', 'the resident snapshot is the committed one');
});

t.test('a machine_version mismatch on rehydrate is an explicit error with the reason given to the owner', async (t) => {
  const { store } = await openTestStore(t);
  const old = setup(store);
  await old.jobs.spawn('job-1', { jobId: 'job-1' });
  old.registry.close();

  const upgraded = setup(store, old.clock, JOB_VERSION + 1);
  t.teardown(() => upgraded.registry.close());
  const error = await upgraded.jobs.transition('job-1', { type: 'START', now: 0 }).catch((e: unknown) => e);
  t.type(error, ActorFailureError);
  t.match((error as ActorFailureError).failure.reason, { code: 'machine_version_mismatch', stored: JOB_VERSION, current: JOB_VERSION + 1 });
  t.equal((error as ActorFailureError).code, 'INTERNAL');
  await t.rejects(upgraded.jobs.peek('job-1'), ActorFailureError, 'peek refuses too');
  await turn();
  t.equal(upgraded.failures.length, 1, 'the owner is told once');
  t.match(upgraded.failures[0], { kind: 'job', id: 'job-1', reason: { code: 'machine_version_mismatch' } });

  // The owner records the failure and retires the row in its own unit of work.
  t.equal(await store.writer.submit((tx) => upgraded.jobs.retire(tx.repos, 'job-1')), true);
  t.equal((await store.repos.snapshots.get('job-1'))?.status, 'failed');
  const retired = await upgraded.jobs.peek('job-1').catch((e: unknown) => e);
  t.match(retired, { failure: { reason: { code: 'retired' } } }, 'a retired row is never rehydrated');
});

t.test('spawnRow writes a new actor inside the caller unit of work; it is read on first use', async (t) => {
  const { store } = await openTestStore(t);
  const { jobs, registry, clock } = setup(store);
  t.teardown(() => registry.close());
  await t.rejects(
    store.writer.submit(async (tx) => {
      await jobs.spawnRow(tx.repos, 'job-1', { jobId: 'job-1' }, { type: 'START', now: clock.now() });
      throw new Error('caller rolled back');
    }),
  );
  t.equal(await store.repos.snapshots.get('job-1'), undefined, 'rolled back with the caller');

  const step = await store.writer.submit(async (tx) => {
    await effectRow(tx.repos, 'job-1', clock.now());
    return jobs.spawnRow(tx.repos, 'job-1', { jobId: 'job-1' }, { type: 'START', now: clock.now() });
  });
  t.equal(step.snapshot.value, 'running');
  t.same(step.emitted, [{ type: 'job.started', jobId: 'job-1', at: clock.now() }]);
  t.equal(registry.residentCount, 0, 'nothing made resident');
  t.equal((await jobs.peek('job-1'))!.value, 'running', 'read on first use');
  await t.rejects(store.writer.submit((tx) => jobs.spawnRow(tx.repos, 'job-1', { jobId: 'job-1' })), { code: 'CONFLICT' });
});

t.test('an implicit kind: with no snapshot row the owner implies the first step; the next committed step writes the row', async (t) => {
  const { store } = await openTestStore(t);
  const clock = new ManualClock();
  const registry = createActorRegistry({ store, clock, logger: memoryLogger() });
  const queuedByOwner = new Set(['job-7']);
  const jobs = registry.register('job', {
    machine: jobMachine,
    version: JOB_VERSION,
    onFailure: () => undefined,
    implicit: (id) => (queuedByOwner.has(id) ? { input: { jobId: id } } : undefined),
  });
  t.equal((await jobs.peek('job-7'))?.value, 'queued', 'peek computes the implied first state');
  t.equal(await store.repos.snapshots.get('job-7'), undefined, 'reading writes nothing');
  const step = await jobs.transition('job-7', { type: 'START', now: clock.now() });
  t.equal(step.before?.value, 'queued');
  t.equal(step.snapshot.value, 'running');
  t.match(JSON.parse((await store.repos.snapshots.get('job-7'))!.snapshot), { value: 'running' }, 'the first committed step wrote the row');
  await t.rejects(jobs.transition('job-8', { type: 'START', now: clock.now() }), { code: 'NOT_FOUND' }, 'an id the owner does not imply does not exist');
});

t.test('N nodes: without resident snapshots a step made by another node is not overwritten by a stale one', async (t) => {
  const { store } = await openTestStore(t, { path: tempDbPath(t) });
  const clock = new ManualClock();
  const node = (residentSnapshots?: boolean) => {
    const registry = createActorRegistry({ store, clock, logger: memoryLogger(), residentSnapshots });
    t.teardown(() => registry.close());
    return registry.register('job', { machine: jobMachine, version: JOB_VERSION, onFailure: () => {} });
  };
  const steps = async () => JSON.parse((await store.repos.snapshots.get('job-1'))!.snapshot).context.steps as number;
  const fresh = node(false);
  const other = node(false);
  await fresh.spawn('job-1', { jobId: 'job-1' });
  await fresh.transition('job-1', { type: 'START', now: clock.now() });
  await other.transition('job-1', { type: 'BOOM', now: clock.now() });
  await fresh.transition('job-1', { type: 'BOOM', now: clock.now() });
  t.equal(await steps(), 3, 'each node stepped from the committed row');

  // The one-process default keeps the snapshot resident: right for one process, stale once another node steps it.
  const resident = node();
  await resident.transition('job-1', { type: 'BOOM', now: clock.now() });
  await other.transition('job-1', { type: 'BOOM', now: clock.now() });
  await resident.transition('job-1', { type: 'BOOM', now: clock.now() });
  t.equal(await steps(), 5, 'a resident snapshot lost the other node\'s step (why N nodes turn it off)');
});
