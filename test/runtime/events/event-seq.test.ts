// Per-session event seqs held in memory (issue 12 item 5): dense, right after a rollback, right whoever wrote rows before.
import t from 'tap';
import { openStore } from '../../../storage/store.js';
import { seedSessions } from './seed-sessions.js';

function fixture() {
  const store = openStore({ path: ':memory:' });
  const [a, b] = seedSessions(store, 2) as [string, string];
  const append = (session: string, type = 'x') => store.writer.submit(() => store.repos.sessionEvents.appendNext(session, 1, type, '{}'));
  const seqs = (session: string) => store.repos.sessionEvents.listRange(session, 0, 1e9, 1e6).map((row) => row.seq);
  return { store, a, b, append, seqs };
}

t.test('appends number each session 1, 2, 3 … independently', async (t) => {
  const { store, a, b, append, seqs } = fixture();
  t.teardown(() => store.close());
  t.same(await Promise.all([append(a), append(b), append(a), append(a)]), [1, 1, 2, 3]);
  t.same(seqs(a), [1, 2, 3]);
  // The seq comes from memory: the next appends are plain inserts (the statement counter proves it in turn-cost).
  t.same(await Promise.all([append(a), append(b)]), [4, 2]);
});

t.test('a unit that rolls back gives its seqs back: the next append fills the same number', async (t) => {
  const { store, a, append, seqs } = fixture();
  t.teardown(() => store.close());
  await append(a);
  const failing = store.writer.submit(() => {
    store.repos.sessionEvents.appendNext(a, 1, 'x', '{}');
    store.repos.sessionEvents.appendNext(a, 1, 'x', '{}');
    throw new Error('refused');
  });
  const next = append(a);
  await t.rejects(failing, /refused/);
  t.equal(await next, 2, 'the unit after the failed one in the same batch');
  t.equal(await append(a), 3);
  t.same(seqs(a), [1, 2, 3]);
});

t.test('rows written by someone who does not share the cache (another module, raw SQL) are respected', async (t) => {
  const { store, a, b, append, seqs } = fixture();
  t.teardown(() => store.close());
  t.equal(await append(a), 1);
  store.db.prepare("INSERT INTO session_events (session_id, seq, ts, type, payload) VALUES (?, 2, 1, 'x', '{}'), (?, 3, 1, 'x', '{}')").run(a, a);
  store.db.prepare("INSERT INTO session_events (session_id, seq, ts, type, payload) VALUES (?, 1, 1, 'x', '{}')").run(b);
  t.equal(await append(a), 4, 'a stale seq hits the primary key and is reseeded from the table');
  t.equal(await append(b), 2, 'a session never appended here is seeded from the table');
  t.same(seqs(a), [1, 2, 3, 4]);
});

t.test('an append outside the writer (no unit to roll back with) is not cached', async (t) => {
  const { store, a, append, seqs } = fixture();
  t.teardown(() => store.close());
  t.equal(await append(a), 1);
  t.throws(() =>
    store.db.transaction(() => {
      store.repos.sessionEvents.appendNext(a, 1, 'x', '{}');
      throw new Error('rolled back');
    })(),
  );
  t.equal(await append(a), 2, 'the rolled-back raw transaction left no hole');
  t.same(seqs(a), [1, 2]);
});
