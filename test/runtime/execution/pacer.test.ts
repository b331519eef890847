// The pacer bounds what execution runs per loop turn: slices, one waiter at a time, committed callers first, opener first.
import t from 'tap';
import { createPacer } from '../../../runtime/execution/pacer.js';

/** A clock the test moves: each released chunk "costs" what it adds. */
function manualTime() {
  let at = 0;
  return { now: () => at, spend: (ms: number) => (at += ms) };
}
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

t.test('past a slice the rest waits for the next turn of the loop; within one, waiters go one chunk at a time, in order', async (t) => {
  const time = manualTime();
  const pacer = createPacer(4, time.now);
  await pacer.pace();
  time.spend(5); // execution used up its first slice, and the rest of the loop gets its turn at once
  const log: string[] = [];
  const chunks = ['a', 'b', 'c', 'd'].map(async (name) => {
    await pacer.pace();
    log.push(`${name}1`);
    time.spend(3);
    await Promise.resolve();
    log.push(`${name}2`);
  });
  t.same(log, [], 'nothing runs before the loop turns');
  await nextTurn();
  // Slice of 4 ms (the rest of the loop took no time): a runs (3 ms used), so b is released (6 ms used); then the
  // slice is over and c, d wait.
  t.same(log, ['a1', 'a2', 'b1', 'b2'], "each waiter's chunk runs to its next await before the next is released");
  await nextTurn();
  t.same(log.slice(4), ['c1', 'c2', 'd1', 'd2'], 'the rest ran in the next slice');
  for (let i = 0; i < 6; i++) await nextTurn();
  await Promise.all(chunks);
  t.same(log.filter((entry) => entry.endsWith('1')), ['a1', 'b1', 'c1', 'd1'], 'FIFO');
});

t.test('a slice lasts as long as the rest of the loop ran since the last one, up to twice the base slice', async (t) => {
  for (const [others, expected] of [
    [2, 4],
    [6, 6],
    [20, 8],
  ]) {
    const time = manualTime();
    const pacer = createPacer(4, time.now);
    await pacer.pace();
    time.spend(5); // the first slice is used up: the chunks below wait for the pacer's turn
    let released = 0;
    const chunks = Array.from({ length: 12 }, async () => {
      await pacer.pace();
      released += 1;
      time.spend(1);
    });
    time.spend(others); // HTTP held the loop this long before the pacer's turn
    await nextTurn();
    t.equal(released, expected, `${others} ms of other work: a slice of ${expected} ms runs ${expected} chunks of 1 ms`);
    for (let i = 0; i < 4; i++) await nextTurn();
    await Promise.all(chunks);
  }
});

t.test('work queued with run() goes before pace() waiters, and never synchronously', async (t) => {
  const time = manualTime();
  const pacer = createPacer(4, time.now);
  time.spend(10);
  const log: string[] = [];
  void pacer.pace().then(() => log.push('waiter'));
  pacer.run(() => log.push('resumed 1'));
  pacer.run(() => log.push('resumed 2'));
  t.same(log, [], 'run() queues, even many at once');
  for (let i = 0; i < 3; i++) await nextTurn();
  t.same(log, ['resumed 1', 'resumed 2', 'waiter']);
});

t.test('the opener (a commit) runs first in the pacer turn, and the waiters get a full slice after it', async (t) => {
  const time = manualTime();
  const pacer = createPacer(4, time.now);
  time.spend(10);
  const log: string[] = [];
  pacer.openSlicesWith(() => {
    log.push('commit');
    time.spend(20); // a long commit does not eat the slice of the work it resumes
    pacer.run(() => log.push('resumed'));
  });
  pacer.wake();
  void pacer.pace().then(() => log.push('waiter'));
  await nextTurn();
  await nextTurn();
  t.same(log, ['commit', 'resumed', 'waiter']);
});

t.test('inside a fresh slice with nobody waiting, pace() does not yield to the loop', async (t) => {
  const time = manualTime();
  const pacer = createPacer(4, time.now);
  let turned = false;
  setImmediate(() => (turned = true));
  await pacer.pace();
  t.notOk(turned);
});

t.test('an opener that went async (a batch of async units) holds the slice: no waiter runs between its steps (issue 12)', async (t) => {
  const time = manualTime();
  const pacer = createPacer(4, time.now);
  time.spend(10);
  const log: string[] = [];
  void pacer.pace().then(() => log.push('waiter'));
  pacer.openSlicesWith(async () => {
    for (const unit of ['unit 1', 'unit 2', 'unit 3']) {
      log.push(unit);
      await Promise.resolve(); // a unit's await: a microtask hop with the transaction open
    }
    log.push('commit');
    pacer.run(() => log.push('resumed'));
  });
  pacer.wake();
  await nextTurn();
  await nextTurn();
  t.same(log, ['unit 1', 'unit 2', 'unit 3', 'commit', 'resumed', 'waiter'], 'the batch runs as one stretch, then its callers, then the waiters');
});
