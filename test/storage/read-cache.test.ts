// The read cache inside an open transaction: filled from committed state, never from a transaction's own watched write.
import t, { type Test } from 'tap';
import { createReadCache } from '../../storage/read-cache.js';
import { openDatabase } from '../../storage/database.js';

/** A cached read of one domain's name on a watched table, counting how often it reaches SQLite. */
function domains(t: Test) {
  const raw = openDatabase(':memory:');
  t.teardown(() => raw.close());
  raw.exec('CREATE TABLE domains (id TEXT PRIMARY KEY, name TEXT NOT NULL)');
  const cache = createReadCache(raw);
  const { db } = cache;
  db.prepare("INSERT INTO domains (id, name) VALUES ('d1', 'first')").run();
  const select = db.prepare('SELECT name FROM domains WHERE id = ?').pluck();
  const rename = db.prepare('UPDATE domains SET name = ? WHERE id = ?');
  let reads = 0;
  const name = cache.cached(
    (id: string) => ((reads += 1), select.get(id) as string),
    (id) => id,
  );
  return { db, name, rename, reads: () => reads };
}

t.test('a read inside a transaction with no watched write since the last committed read is cached', (t) => {
  const { db, name, reads } = domains(t);
  t.equal(name('missing'), undefined, 'a read outside any transaction marks the committed state');
  db.prepare('BEGIN IMMEDIATE').run();
  t.equal(name('d1'), 'first');
  t.equal(name('d1'), 'first');
  db.prepare('COMMIT').run();
  t.equal(reads(), 2, 'the second read inside the transaction was answered from the cache');
  t.end();
});

t.test("a read after the transaction's own watched write is not cached, so a rollback leaves nothing stale", (t) => {
  const { db, name, rename, reads } = domains(t);
  t.equal(name('d1'), 'first');
  db.prepare('BEGIN IMMEDIATE').run();
  rename.run('renamed', 'd1');
  t.equal(name('d1'), 'renamed', 'the transaction sees its own write');
  t.equal(name('d1'), 'renamed');
  t.equal(reads(), 3, 'neither read inside the transaction was cached');
  db.prepare('ROLLBACK').run();
  t.equal(name('d1'), 'first', 'after the rollback the committed name is read again');
  t.equal(reads(), 4);
  t.end();
});

t.test('a watched write committed by an earlier transaction keeps the next one from filling until a read outside', (t) => {
  const { db, name, rename, reads } = domains(t);
  t.equal(name('d1'), 'first');
  db.prepare('BEGIN IMMEDIATE').run();
  rename.run('second', 'd1');
  db.prepare('COMMIT').run();
  db.prepare('BEGIN IMMEDIATE').run();
  t.equal(name('d1'), 'second');
  t.equal(name('d1'), 'second');
  t.equal(reads(), 3, 'not filled: no read outside a transaction has seen the generation since that write');
  db.prepare('COMMIT').run();
  t.equal(name('d1'), 'second');
  t.equal(name('d1'), 'second');
  t.equal(reads(), 4, 'filled from the read outside, then served');
  t.end();
});
