// The SQLite group-commit writer as the storage port's UnitWriter: async units in the batch transaction, the loop-turn sentinel.
import t, { type Test } from 'tap';
import { createPacer } from '../../runtime/execution/pacer.js';
import { createGroupCommitWriter, type GroupCommitOptions } from '../../storage/group-commit.js';
import { UnitSpannedLoopTurnError } from '../../storage/port/unit-errors.js';
import { openStore, type Store } from '../../storage/store.js';
import { journalOf } from '../../storage/tx-journal.js';
import { sharedUnitWriterCases, type NotesRepo } from './unit-writer-cases.js';

function notes(t: Test, options: Omit<GroupCommitOptions<NotesRepo>, 'repos'> = {}) {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  store.db.exec('CREATE TABLE unit_notes (id TEXT PRIMARY KEY)');
  const insert = store.db.prepare('INSERT INTO unit_notes (id) VALUES (?)');
  const count = store.db.prepare('SELECT COUNT(*) FROM unit_notes').pluck();
  const repos: NotesRepo = { add: (id) => void insert.run(id), count: () => count.get() as number };
  const writer = createGroupCommitWriter(store.db, { ...options, repos });
  const committed = async () => store.db.prepare('SELECT id FROM unit_notes ORDER BY id').pluck().all() as string[];
  return { store, writer, committed };
}

t.test('shared unit-writer behaviour on SQLite', async (t) => sharedUnitWriterCases(t, async (t) => notes(t)));

t.test('a synchronous unit stays synchronous: flush commits it before returning, no promise in between', (t) => {
  const { writer, committed, store } = notes(t);
  let ran = false;
  void writer.submit(() => void (ran = true));
  void writer.submit((tx) => tx.repos.add('sync'));
  t.equal(writer.flush(), undefined, 'flush of synchronous units returns nothing to await');
  t.ok(ran);
  t.notOk(store.db.inTransaction, 'the batch committed');
  return committed().then((ids) => t.same(ids, ['sync']));
});

t.test('legacy units and writer.afterCommit keep working beside async units in one batch', async (t) => {
  const { writer, committed } = notes(t);
  const log: string[] = [];
  const legacy = writer.submit(() => {
    writer.afterCommit(() => log.push('legacy'));
    return 'plain';
  });
  const asyncUnit = writer.submit(async (tx) => {
    await tx.repos.add('n');
    writer.afterCommit(() => log.push('async via writer, after an await'));
    return 'awaited';
  });
  t.same(await Promise.all([legacy, asyncUnit]), ['plain', 'awaited']);
  t.same(log, ['legacy', 'async via writer, after an await']);
  t.same(await committed(), ['n']);
  t.equal(writer.stats.batches, 1, 'one transaction for both');
});

t.test('a failing async unit rolls back its in-memory journal with its savepoint; a committed one keeps it', async (t) => {
  const { writer, store } = notes(t);
  const journal = journalOf(store.db);
  const cache = new Map<string, number>();
  const cachedWrite = (key: string) => {
    cache.set(key, 1);
    journal.onRollback(() => cache.delete(key));
  };
  const failed = writer.submit(async (tx) => {
    await tx.repos.add('x');
    cachedWrite('failed');
    throw new Error('after caching');
  });
  const kept = writer.submit(async () => {
    await Promise.resolve();
    cachedWrite('kept');
  });
  await t.rejects(failed, { message: 'after caching' });
  await kept;
  t.same([...cache.keys()], ['kept']);
  t.notOk(journal.framed, 'every frame closed');
});

t.test('a unit still pending on the next loop turn is refused whatever it returns; the rest of its batch commits', async (t) => {
  const spanned: unknown[] = [];
  const { writer, committed } = notes(t, { onSpannedTurn: (error) => spanned.push(error) });
  const before = writer.submit(async (tx) => tx.repos.add('before'));
  const slow = writer.submit(async (tx) => {
    await new Promise((resolve) => setTimeout(resolve, 5)); // real I/O-like wait inside the transaction
    await tx.repos.add('slow');
    return 'would have been fine';
  });
  const after = writer.submit((tx) => tx.repos.add('after'));
  await t.rejects(slow, UnitSpannedLoopTurnError);
  await Promise.all([before, after]);
  t.same(await committed(), ['after', 'before'], "the slow unit's write, made after the sentinel, is rolled back");
  t.equal(spanned.length, 1, 'reported once, when detected');
  t.equal(writer.stats.spannedTurns, 1);
});

t.test('async units without a savepoint share one; one failing reruns the others one savepoint each', async (t) => {
  const { writer, committed } = notes(t);
  const runs: string[] = [];
  const bare = (id: string, fail = false) =>
    writer.submit(
      async (tx) => {
        runs.push(id);
        await tx.repos.add(id);
        if (fail) throw new Error(`bad ${id}`);
      },
      { savepoint: false },
    );
  const results = await Promise.allSettled([bare('a'), bare('b', true), bare('c')]);
  t.same(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  t.same(runs, ['a', 'b', 'a', 'b', 'c'], 'the shared savepoint stopped at b, then each ran alone');
  t.same(await committed(), ['a', 'c']);
});

t.test('the time cap applies between async units: the rest go to the next batch', async (t) => {
  const { writer, committed } = notes(t, { maxBatchMs: 0 });
  await Promise.all(['a', 'b', 'c'].map((id) => writer.submit(async (tx) => tx.repos.add(id))));
  t.equal(writer.stats.batches, 3, 'the first unit always runs, no other past the cap');
  t.same(await committed(), ['a', 'b', 'c']);
});

t.test("the store's writer hands units the store's repositories", async (t) => {
  const store: Store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  t.equal(await store.writer.submit(async (tx) => tx.repos), store.repos);
});

t.test('closing the store while an async unit runs closes the handle after its batch committed', async (t) => {
  const store = openStore({ path: ':memory:' });
  const done = store.writer.submit(async () => {
    await Promise.resolve();
    return 'committed';
  });
  store.writer.flush();
  store.close();
  t.ok(store.db.open, 'still open while the batch runs');
  t.equal(await done, 'committed');
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(store.db.open, 'closed once the batch was done');
});

t.test("with the runtime's pacer, an async unit's batch commits in the pacer's slice and its callers resume through it", async (t) => {
  const { writer, committed } = notes(t);
  writer.paceWith(createPacer());
  const values = await Promise.all([
    writer.submit(async (tx) => {
      await tx.repos.add('a');
      return 'a';
    }),
    writer.submit((tx) => {
      tx.repos.add('b');
      return 'b';
    }),
  ]);
  t.same(values, ['a', 'b']);
  t.same(await committed(), ['a', 'b']);
  // The writer goes on after an async batch: the next one is woken through the pacer too.
  t.equal(await writer.submit(async (tx) => tx.repos.count()), 2);
  t.equal(writer.stats.batches, 2);
});
