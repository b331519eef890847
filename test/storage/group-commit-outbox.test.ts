// The unit of work's outbox: post-commit publications run after their unit commits, in commit order, never after a rollback.
import t from 'tap';
import { createGroupCommitWriter } from '../../storage/group-commit.js';
import { openStore } from '../../storage/store.js';

function fixture(t: { teardown(fn: () => void): void }) {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  return store;
}

t.test('publications run once their unit committed, in commit order, before the callers resume', async (t) => {
  const { writer } = fixture(t);
  const log: string[] = [];
  const units = ['a', 'b', 'c'].map((name) =>
    writer
      .submit(() => {
        writer.afterCommit(() => log.push(`${name}:1`));
        writer.afterCommit(() => log.push(`${name}:2`));
        log.push(`${name}:ran`);
        return name;
      })
      .then((value) => log.push(`${value}:resumed`)),
  );
  t.same(log, [], 'nothing runs at submit');
  await Promise.all(units);
  t.same(log, ['a:ran', 'b:ran', 'c:ran', 'a:1', 'a:2', 'b:1', 'b:2', 'c:1', 'c:2', 'a:resumed', 'b:resumed', 'c:resumed']);
});

t.test('a unit that rolls back publishes nothing; its neighbours in the batch still do', async (t) => {
  const { writer } = fixture(t);
  const log: string[] = [];
  const failed = writer.submit(() => {
    writer.afterCommit(() => log.push('failed'));
    throw new Error('refused');
  });
  const ok = writer.submit(() => writer.afterCommit(() => log.push('ok')));
  await t.rejects(failed, { message: 'refused' });
  await ok;
  t.same(log, ['ok']);
});

t.test('a throwing publication is reported, and neither the commit nor the next publication is lost', async (t) => {
  const errors: unknown[] = [];
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  const writer = createGroupCommitWriter(store.db, { onPublishError: (error) => errors.push(error) });
  const log: string[] = [];
  const value = await writer.submit(() => {
    writer.afterCommit(() => {
      throw new Error('listener broke');
    });
    writer.afterCommit(() => log.push('next'));
    return 42;
  });
  t.equal(value, 42);
  t.same(log, ['next']);
  t.match(errors, [{ message: 'listener broke' }]);
});

t.test('afterCommit outside a unit of work is a programming error', async (t) => {
  const { writer } = fixture(t);
  t.throws(() => writer.afterCommit(() => {}), /only valid inside a unit of work/);
});
