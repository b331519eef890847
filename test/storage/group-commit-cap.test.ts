// A group-commit batch is bounded in time: past maxBatchMs the remaining units wait for the next loop turn, in order.
import t from 'tap';
import { createGroupCommitWriter } from '../../storage/group-commit.js';
import { openStore } from '../../storage/store.js';

/** Holds the loop for `ms` (a unit's synchronous cost). */
const spin = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

function fixture(t: { teardown(fn: () => void): void }, maxBatchMs: number) {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  store.db.exec('CREATE TABLE cap_log (n INTEGER NOT NULL)');
  const insert = store.db.prepare('INSERT INTO cap_log (n) VALUES (?)');
  return { store, writer: createGroupCommitWriter(store.db, { maxBatchMs }), insert };
}

t.test('units past the time cap commit in later batches, in submission order, each answered with its own value', async (t) => {
  const { store, writer, insert } = fixture(t, 3);
  const turns: number[] = [];
  let turn = 0;
  const ticking = setInterval(() => (turn += 1), 0);
  t.teardown(() => clearInterval(ticking));
  const values = await Promise.all(
    Array.from({ length: 6 }, (_, n) =>
      writer.submit(() => {
        spin(2);
        insert.run(n);
        turns.push(turn);
        return n;
      }),
    ),
  );
  t.same(values, [0, 1, 2, 3, 4, 5]);
  t.same(store.db.prepare('SELECT n FROM cap_log ORDER BY rowid').pluck().all(), [0, 1, 2, 3, 4, 5], 'committed in submission order');
  t.equal(writer.stats.units, 6);
  t.ok(writer.stats.batches >= 3, `2 ms units under a 3 ms cap: at most two per batch (${writer.stats.batches} batches)`);
  t.ok(new Set(turns).size >= 2, 'later batches ran on later turns of the loop');
});

t.test('a run of units without savepoints is cut at the cap too, and a failing one still rolls back alone', async (t) => {
  const { store, writer, insert } = fixture(t, 3);
  const outcomes = await Promise.allSettled(
    Array.from({ length: 6 }, (_, n) =>
      writer.submit(
        () => {
          spin(2);
          insert.run(n);
          if (n === 4) throw new Error('unit 4 refused');
          return n;
        },
        { savepoint: false },
      ),
    ),
  );
  t.same(
    outcomes.map((o) => o.status),
    ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
  );
  t.same(store.db.prepare('SELECT n FROM cap_log ORDER BY rowid').pluck().all(), [0, 1, 2, 3, 5], 'only the failing unit is missing');
  t.ok(writer.stats.batches >= 3, `cut by time (${writer.stats.batches} batches)`);
});

t.test('the first unit of a batch always runs, however long it takes', async (t) => {
  const { writer } = fixture(t, 1);
  const values = await Promise.all([writer.submit(() => (spin(3), 'slow')), writer.submit(() => 'next')]);
  t.same(values, ['slow', 'next']);
  t.equal(writer.stats.batches, 2);
});
