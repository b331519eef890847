// The behaviour both unit writers share (SQLite group commit, PostgreSQL unit of work), written once against the storage port.
import type { Test } from 'tap';
import type { UnitWriter } from '../../storage/port/unit.js';

/** A tiny repository over `unit_notes (id text primary key)`: synchronous on SQLite, async on PostgreSQL. */
export interface NotesRepo {
  add(id: string): void | Promise<void>;
  count(): number | Promise<number>;
}

export interface WriterFixture {
  writer: UnitWriter<NotesRepo>;
  /** The committed note ids, read outside the writer, sorted. */
  committed(): Promise<string[]>;
}

/** Registers the shared cases; `open` builds a fresh writer over a fresh `unit_notes` table. */
export function sharedUnitWriterCases(t: Test, open: (t: Test) => Promise<WriterFixture>): void {
  t.test('an async unit commits and its caller gets its value after the commit', async (t) => {
    const { writer, committed } = await open(t);
    const value = await writer.submit(async (tx) => {
      await tx.repos.add('a');
      return { seen: await tx.repos.count() };
    });
    t.same(value, { seen: 1 }, 'the unit reads its own write inside the transaction');
    t.same(await committed(), ['a']);
  });

  t.test('one failing unit rolls back only itself and rejects only its caller', async (t) => {
    const { writer, committed } = await open(t);
    const results = await Promise.allSettled([
      writer.submit(async (tx) => tx.repos.add('first')),
      writer.submit(async (tx) => {
        await tx.repos.add('doomed');
        throw new Error('refused after writing');
      }),
      writer.submit(async (tx) => {
        await tx.repos.add('first'); // duplicate key: the database refuses the statement itself
      }),
      writer.submit(async (tx) => tx.repos.add('last')),
    ]);
    t.same(results.map((r) => r.status), ['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    t.match(results[1], { reason: { message: 'refused after writing' } });
    t.same(await committed(), ['first', 'last']);
  });

  t.test('publications run once their unit committed, in commit order, before the callers resume; never after a rollback', async (t) => {
    const { writer, committed } = await open(t);
    const log: string[] = [];
    const unit = (id: string, fail = false) =>
      writer
        .submit(async (tx) => {
          await tx.repos.add(id);
          tx.afterCommit(() => log.push(`${id}:1`));
          await tx.repos.count();
          tx.afterCommit(() => log.push(`${id}:2`));
          if (fail) throw new Error('no');
          return id;
        })
        .then((value) => log.push(`${value}:resumed`), () => log.push(`${id}:rejected`));
    const all = Promise.all([unit('a'), unit('b', true), unit('c')]);
    t.same(log, [], 'nothing runs at submit');
    await all;
    t.same(log, ['a:1', 'a:2', 'c:1', 'c:2', 'a:resumed', 'b:rejected', 'c:resumed']);
    t.same(await committed(), ['a', 'c']);
  });

  t.test('units submitted together run in submission order', async (t) => {
    const { writer } = await open(t);
    const order: number[] = [];
    const counts = await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        writer.submit(async (tx) => {
          order.push(i);
          await tx.repos.add(`n${i}`);
          return tx.repos.count();
        }),
      ),
    );
    t.same(order, [0, 1, 2, 3, 4]);
    t.same(counts, [1, 2, 3, 4, 5], 'each unit sees the writes of the units before it');
  });

  t.test('flush commits what is queued; then everything submitted before it is durable', async (t) => {
    const { writer, committed } = await open(t);
    const pending = [writer.submit(async (tx) => tx.repos.add('x')), writer.submit((tx) => tx.repos.add('y'))];
    await writer.flush();
    t.same(await committed(), ['x', 'y']);
    await Promise.all(pending);
    t.ok(writer.stats.units >= 2 && writer.stats.batches >= 1, 'stats count the units and batches');
  });
}
