// Admission control: depth bounded by measured drain rate x limit seconds, Retry-After from the excess.
import t from 'tap';
import { createAdmission } from '../../../runtime/execution/admission.js';

function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

t.test('refuses with 429 OVERLOADED and Retry-After once queued work exceeds rate x seconds; counts nothing refused', async (t) => {
  const c = clock();
  const admission = createAdmission({ queueLimitSeconds: 2, queueMaxExecutions: 1_000, initialRatePerSecond: 10 }, c.now);
  admission.admit(20);
  t.equal(admission.stats().queued, 20);
  t.throws(() => admission.admit(1), { code: 'OVERLOADED', status: 429, retryAfterSeconds: 1 });
  t.throws(() => admission.admit(31), { code: 'OVERLOADED', retryAfterSeconds: 4 }, 'Retry-After grows with the excess: 31 over at 10/s');
  t.equal(admission.stats().queued, 20, 'a refused request adds nothing');
  t.equal(admission.stats().refused, 2);
  admission.admit(0);
  t.pass('a request that queues nothing is always admitted');
});

t.test('the rate is measured from executions started during busy windows only', async (t) => {
  const c = clock();
  const admission = createAdmission({ queueLimitSeconds: 1, queueMaxExecutions: 100_000, initialRatePerSecond: 10 }, c.now);
  admission.admit(10);
  for (let s = 0; s < 20; s++) {
    admission.enqueued(1_000);
    c.advance(1_000);
    admission.started(1_000);
  }
  c.advance(1_000);
  admission.admit(0);
  t.ok(admission.stats().ratePerSecond > 900, `converges on ~1,000/s (got ${admission.stats().ratePerSecond})`);
  admission.started(admission.stats().queued);
  c.advance(1_000);
  admission.admit(0);
  const busyRate = admission.stats().ratePerSecond;
  for (let s = 0; s < 10; s++) {
    c.advance(1_000);
    admission.admit(0);
  }
  t.equal(admission.stats().ratePerSecond, busyRate, 'idle seconds do not lower the measured capacity');
});

t.test('the hard cap holds whatever the rate; release gives back what did not commit', async (t) => {
  const admission = createAdmission({ queueLimitSeconds: 3_600, queueMaxExecutions: 5, initialRatePerSecond: 1_000 });
  admission.admit(5);
  t.throws(() => admission.admit(1), { code: 'OVERLOADED' });
  admission.release(2);
  admission.admit(2);
  admission.started(7);
  t.equal(admission.stats().queued, 0, 'never negative');
  t.equal(admission.stats().limit, 5);
});

t.test('bound: a count above the database\'s queued total is lowered to it, never raised', async (t) => {
  const admission = createAdmission({ queueLimitSeconds: 10, queueMaxExecutions: 100, initialRatePerSecond: 5 });
  admission.admit(3);
  admission.bound(5);
  t.equal(admission.stats().queued, 3, 'a higher total raises nothing');
  admission.bound(1);
  t.equal(admission.stats().queued, 1, 'two of the three were started by another node');
  admission.bound(0);
  t.equal(admission.stats().queued, 0);
});
