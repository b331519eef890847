// Passivation: idle resident snapshots leave memory on the injected clock and are read back on demand.
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { createActorRegistry } from '../../../runtime/actors/index.js';
import type { Storage } from '../../../storage/port/storage.js';
import { openTestStore } from '../../helpers/test-store.js';
import { JOB_VERSION, jobMachine, memoryLogger } from './job.fixture.js';

function setup(store: Storage, options: { idleMs?: number } = {}) {
  const clock = new ManualClock();
  const registry = createActorRegistry({ store, clock, logger: memoryLogger(), idleMs: options.idleMs ?? 60_000 });
  const jobs = registry.register('job', { machine: jobMachine, version: JOB_VERSION, onFailure: () => {} });
  return { registry, jobs, clock };
}

t.test('idle actors are passivated on the injected clock and rehydrated on demand', async (t) => {
  const { store } = await openTestStore(t);
  const { jobs, registry, clock } = setup(store, { idleMs: 60_000 });
  t.teardown(() => registry.close());
  for (const id of ['a', 'b', 'c']) await jobs.spawn(id, { jobId: id });
  t.equal(registry.residentCount, 3);

  clock.advance(59_999);
  t.equal(registry.residentCount, 3, 'not idle yet');
  await jobs.transition('b', { type: 'START', now: clock.now() });
  clock.advance(2);
  t.equal(registry.residentCount, 1, 'a and c passivated, b was used');
  t.equal((await jobs.peek('b'))!.value, 'running');

  t.equal((await jobs.peek('a'))!.value, 'queued', 'read back on demand');
  await jobs.transition('a', { type: 'START', now: clock.now() });
  t.equal(registry.residentCount, 2);
  clock.advance(60_001);
  t.equal(registry.residentCount, 0);
  t.equal(registry.passivateIdle(), 0, 'nothing left to drop');
});

t.test('an actor with a step in flight is not passivated', async (t) => {
  const { store } = await openTestStore(t);
  const { jobs, registry, clock } = setup(store, { idleMs: 1_000 });
  t.teardown(() => registry.close());
  await jobs.spawn('a', { jobId: 'a' });
  clock.advance(500);
  const pending = jobs.transition('a', { type: 'START', now: clock.now() }, () => {
    clock.advance(5_000); // the sweep runs while this step's unit of work is inside the transaction
    return registry.residentCount;
  });
  t.equal(await pending, 1, 'still resident while its step was in flight');
  t.equal((await jobs.peek('a'))!.value, 'running');
});
