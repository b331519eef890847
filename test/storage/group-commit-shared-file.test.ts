// A writer sharing its file with another writing connection (execution thread mode) never blocks its loop on the lock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openDatabase } from '../../storage/database.js';
import { openStore } from '../../storage/store.js';

t.test('a batch refused the write lock is retried on a timer (counted), the loop keeps turning, and it commits once the lock is free', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-shared-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'shared.db');
  const store = openStore({ path, sharedFile: true });
  t.teardown(() => store.close());
  store.db.exec('CREATE TABLE notes (body TEXT NOT NULL)');
  const other = openDatabase(path);
  t.teardown(() => other.close());

  other.prepare('BEGIN IMMEDIATE').run();
  const started = performance.now();
  const written = store.writer.submit(() => store.db.prepare('INSERT INTO notes (body) VALUES (?)').run('mine'));
  // While the other connection holds the lock, this loop keeps serving: timers fire, the unit is still pending.
  let ticks = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      ticks += 1;
      if (ticks === 10) {
        clearInterval(tick);
        resolve();
      }
    }, 5);
  });
  t.ok(performance.now() - started < 1_000, 'no 5 s busy_timeout wait blocked the loop');
  t.ok(store.writer.stats.busyRetries > 0, `retried ${store.writer.stats.busyRetries} times, counted`);
  t.equal((other.prepare('SELECT COUNT(*) AS n FROM notes').get() as { n: number }).n, 0, 'nothing written while the lock is held');
  other.prepare('INSERT INTO notes (body) VALUES (?)').run('theirs');
  other.prepare('COMMIT').run();
  await written;
  t.same(other.prepare('SELECT body FROM notes ORDER BY rowid').all(), [{ body: 'theirs' }, { body: 'mine' }], 'committed once the lock was free, after the holder');
});

t.test('without sharedFile the writer waits in the busy handler, as before (the default)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-shared-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = openStore({ path: join(dir, 'alone.db') });
  t.teardown(() => store.close());
  store.db.exec('CREATE TABLE notes (body TEXT NOT NULL)');
  await store.writer.submit(() => store.db.prepare('INSERT INTO notes (body) VALUES (?)').run('one'));
  t.equal(store.writer.stats.busyRetries, 0);
});
