// Per-session event seqs held in memory (issue 12 item 5): dense, right after a rollback, right whoever wrote rows before.
import t from 'tap';
import { sqliteOnly } from '../../helpers/server.js';
import { openTestStore } from '../../helpers/test-store.js';
import { seedSessions } from './seed-sessions.js';

async function fixture(t: { teardown(fn: () => unknown): void }) {
  const db = await openTestStore(t);
  const store = db.store;
  const [a, b] = (await seedSessions(db.sql, 2)) as [string, string];
  const append = (session: string, type = 'x') => store.writer.submit((tx) => tx.repos.sessionEvents.appendNext(session, 1, type, '{}'));
  const seqs = async (session: string) => (await store.repos.sessionEvents.listRange(session, 0, 1e9, 1e6)).map((row) => row.seq);
  return { db, store, a, b, append, seqs };
}

t.test('appends number each session 1, 2, 3 … independently', async (t) => {
  const { a, b, append, seqs } = await fixture(t);
  t.same(await Promise.all([append(a), append(b), append(a), append(a)]), [1, 1, 2, 3]);
  t.same(await seqs(a), [1, 2, 3]);
  // The seq comes from memory: the next appends are plain inserts (the statement counter proves it in turn-cost).
  t.same(await Promise.all([append(a), append(b)]), [4, 2]);
});

t.test('a unit that rolls back gives its seqs back: the next append fills the same number', async (t) => {
  const { store, a, append, seqs } = await fixture(t);
  await append(a);
  const failing = store.writer.submit(async (tx) => {
    await tx.repos.sessionEvents.appendNext(a, 1, 'x', '{}');
    await tx.repos.sessionEvents.appendNext(a, 1, 'x', '{}');
    throw new Error('refused');
  });
  const next = append(a);
  await t.rejects(failing, /refused/);
  t.equal(await next, 2, 'the unit after the failed one in the same batch');
  t.equal(await append(a), 3);
  t.same(await seqs(a), [1, 2, 3]);
});

t.test('rows written by someone who does not share the cache (another module, raw SQL) are respected', async (t) => {
  const { db, a, b, append, seqs } = await fixture(t);
  t.equal(await append(a), 1);
  await db.sql.run("INSERT INTO session_events (session_id, seq, ts, type, payload) VALUES (?, 2, 1, 'x', '{}'), (?, 3, 1, 'x', '{}')", a, a);
  await db.sql.run("INSERT INTO session_events (session_id, seq, ts, type, payload) VALUES (?, 1, 1, 'x', '{}')", b);
  t.equal(await append(a), 4, 'a stale seq hits the primary key and is reseeded from the table');
  t.equal(await append(b), 2, 'a session never appended here is seeded from the table');
  t.same(await seqs(a), [1, 2, 3, 4]);
});

t.test('an append outside the writer (no unit to roll back with) is not cached', { skip: sqliteOnly('a raw better-sqlite3 transaction around the repository') }, async (t) => {
  const { db, a, append, seqs } = await fixture(t);
  const store = db.driver.sqlite!;
  t.equal(await append(a), 1);
  t.throws(() =>
    store.db.transaction(() => {
      store.repos.sessionEvents.appendNext(a, 1, 'x', '{}');
      throw new Error('rolled back');
    })(),
  );
  t.equal(await append(a), 2, 'the rolled-back raw transaction left no hole');
  t.same(await seqs(a), [1, 2]);
});
