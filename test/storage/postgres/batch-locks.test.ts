// The unit writer's row locks on a real server: fence checks ride BEGIN/SAVEPOINT, a lease or row is locked once per transaction, stale units are refused.
import t, { type Test } from 'tap';
import type pg from 'pg';
import { connectPostgres } from '../../../storage/postgres/connection.js';
import { lockOnce } from '../../../storage/postgres/batch-locks.js';
import { currentFence, runFenced, type Fence } from '../../../storage/postgres/fence.js';
import { createLeases, StaleLeaseError } from '../../../storage/postgres/leases.js';
import { migratePostgres } from '../../../storage/postgres/migrate.js';
import { createPostgresUnitWriter } from '../../../storage/postgres/unit-of-work.js';
import { usePostgres } from '../../helpers/postgres.js';

const server = await usePostgres(t);
const TTL = 60_000;

/** A migrated database, a writer whose client counts the messages (round trips) it sends, and two held leases. */
async function setup(t: Test) {
  const url = await server.database(t);
  const pool = await connectPostgres({ url, max: 4 });
  t.teardown(() => pool.end());
  await migratePostgres(pool);
  await pool.query('CREATE TABLE notes (id text PRIMARY KEY)');
  const sent: string[] = [];
  const bindRepos = (client: pg.PoolClient) => {
    // Count every message the batch's client sends, the writer's control statements included.
    const tagged = client as pg.PoolClient & { counted?: boolean };
    if (!tagged.counted) {
      tagged.counted = true;
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (...args: unknown[]) => {
        sent.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { text: string }).text));
        return query(...args);
      };
    }
    return {
      add: async (id: string) => void (await client.query('INSERT INTO notes (id) VALUES ($1)', [id])),
      /** A repository's row lock, as lockSession takes the session's. */
      lock: (id: string) => lockOnce(client, `note ${id}`, async () => void (await client.query('SELECT 1 FROM notes WHERE id = $1 FOR NO KEY UPDATE', [id]))),
      touch: async (id: string) => void (await client.query("UPDATE notes SET id = id WHERE id = $1", [id])),
    };
  };
  const writer = createPostgresUnitWriter({ pool, bindRepos });
  const leases = createLeases(pool);
  const a = (await leases.take('session:a', 'node', TTL, 0))!;
  const b = (await leases.take('session:b', 'node', TTL, 0))!;
  const fence = (lease: { resource: string; token: number }): Fence => ({ resource: lease.resource, token: lease.token, active: true });
  const notes = async () => (await pool.query<{ id: string }>('SELECT id FROM notes ORDER BY id')).rows.map((row) => row.id);
  return { url, pool, writer, leases, sent, notes, fenceA: fence(a), fenceB: fence(b), a };
}

const checks = (sent: readonly string[]) => sent.filter((text) => text.includes('FROM resource_leases'));

t.test('fenced units of one batch: each check rides BEGIN or the SAVEPOINT before it, a lease is checked once', { skip: server.skip }, async (t) => {
  const { writer, sent, notes, fenceA, fenceB } = await setup(t);
  const units = [
    runFenced(fenceA, () => writer.submit(async (tx) => tx.repos.add('a1'))),
    runFenced(fenceB, () => writer.submit(async (tx) => tx.repos.add('b1'))),
    runFenced(fenceA, () => writer.submit(async (tx) => tx.repos.add('a2'))),
    writer.submit(async (tx) => tx.repos.add('free')),
  ];
  await Promise.all(units);
  const messages = [...sent];
  t.same(await notes(), ['a1', 'a2', 'b1', 'free']);
  t.equal(checks(messages).length, 2, 'two leases, two checks: the second unit under session:a is not checked again');
  t.ok(checks(messages).every((text) => /^(BEGIN; SAVEPOINT unit|SAVEPOINT unit); SELECT 1 FROM resource_leases/.test(text)), 'each rode a control statement');
  t.equal(messages.length, 1 + 4 * 2 + 1, 'BEGIN, an INSERT and a SAVEPOINT per unit, COMMIT: no round trip of its own for a check');
});

t.test('what an outbox callback goes on to submit is not fenced by the lease of the unit that published it', { skip: server.skip }, async (t) => {
  const { writer, leases, notes, fenceA, a } = await setup(t);
  let handedOver!: () => void;
  const handover = new Promise<void>((resolve) => (handedOver = resolve));
  let fenceInCallback: unknown = 'not called';
  let followUp!: Promise<void>;
  await runFenced(fenceA, () =>
    writer.submit(async (tx) => {
      await tx.repos.add('a1');
      // As the webhook run settlement does after `turn.completed`: later work started from the published event.
      tx.afterCommit(() => {
        fenceInCallback = currentFence();
        followUp = handover.then(() => writer.submit(async (tx) => tx.repos.add('after')));
      });
    }),
  );
  // session:a changes hands before the follow-up is submitted: under session:a's old token it would be refused.
  await leases.release(a, 1);
  await leases.take('session:a', 'other', TTL, 2);
  handedOver();
  await followUp;
  t.equal(fenceInCallback, undefined, 'the outbox runs outside the fence');
  t.same(await notes(), ['a1', 'after']);
});

t.test('a stale unit in a batch is refused alone; the others commit', { skip: server.skip }, async (t) => {
  const { writer, leases, notes, fenceA, fenceB, a } = await setup(t);
  // session:a changes hands: writes under its old token must be refused.
  await leases.release(a, 1);
  await leases.take('session:a', 'other', TTL, 2);
  const results = await Promise.allSettled([
    runFenced(fenceB, () => writer.submit(async (tx) => tx.repos.add('b1'))),
    runFenced(fenceA, () => writer.submit(async (tx) => tx.repos.add('stale'))),
    runFenced(fenceB, () => writer.submit(async (tx) => tx.repos.add('b2'))),
  ]);
  t.same(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  t.type((results[1] as PromiseRejectedResult).reason, StaleLeaseError);
  t.same(await notes(), ['b1', 'b2']);
  // A lone stale unit (its check rode BEGIN) is refused too.
  await t.rejects(runFenced(fenceA, () => writer.submit(async (tx) => tx.repos.add('alone'))), StaleLeaseError);
  t.same(await notes(), ['b1', 'b2']);
});

t.test('a unit rolled back to its savepoint keeps the lease lock taken before it: the next unit under that lease needs no check', { skip: server.skip }, async (t) => {
  const { writer, sent, notes, fenceA } = await setup(t);
  const results = await Promise.allSettled([
    runFenced(fenceA, () => writer.submit(async (tx) => tx.repos.add('a1'))),
    runFenced(fenceA, () => writer.submit(async (tx) => {
      await tx.repos.add('a1'); // a duplicate key: this unit fails and is rolled back to its savepoint
    })),
    runFenced(fenceA, () => writer.submit(async (tx) => tx.repos.add('a2'))),
  ]);
  t.same(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  const messages = [...sent];
  t.same(await notes(), ['a1', 'a2']);
  // The first unit's check was kept (its savepoint stands), so the second unit needed none; its failure undid only what
  // it took itself, so the third unit is covered by the first unit's lock still.
  t.equal(checks(messages).length, 1, 'one check: the lock taken before the failed unit survives its rollback');
});

t.test('a check made inside a unit that is rolled back is forgotten with it', { skip: server.skip }, async (t) => {
  const { writer, sent, notes, fenceA } = await setup(t);
  const results = await Promise.allSettled([
    writer.submit(async (tx) => tx.repos.add('free')),
    runFenced(fenceA, () => writer.submit(async (tx) => tx.repos.add('free'))), // checked, then fails: lock released
    runFenced(fenceA, () => writer.submit(async (tx) => tx.repos.add('a2'))),
  ]);
  t.same(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  const messages = [...sent];
  t.same(await notes(), ['a2', 'free']);
  t.equal(checks(messages).length, 2, 'the third unit is checked again: the second unit\'s lock went with its rollback');
});

t.test('a check that is refused by the server fails its unit alone (the control statement before it stands)', { skip: server.skip }, async (t) => {
  const { url, pool, notes, fenceA } = await setup(t);
  // Another transaction holds the lease row FOR UPDATE; a lock timeout (set for new connections) ends the check's wait.
  const blocker = await pool.connect();
  t.teardown(() => blocker.release());
  await blocker.query('BEGIN');
  await blocker.query("SELECT 1 FROM resource_leases WHERE resource = 'session:a' FOR UPDATE");
  const database = (await pool.query<{ d: string }>('SELECT current_database() AS d')).rows[0]!.d;
  await pool.query(`ALTER DATABASE ${database} SET lock_timeout = '300ms'`);
  const timed = await connectPostgres({ url, max: 2 });
  t.teardown(() => timed.end());
  const writer = createPostgresUnitWriter({ pool: timed, bindRepos: (client) => ({ add: async (id: string) => void (await client.query('INSERT INTO notes (id) VALUES ($1)', [id])) }) });
  const results = await Promise.allSettled([
    writer.submit(async (tx) => tx.repos.add('first')),
    runFenced(fenceA, () => writer.submit(async (tx) => tx.repos.add('blocked'))),
    writer.submit(async (tx) => tx.repos.add('last')),
  ]);
  await blocker.query('ROLLBACK');
  t.same(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  t.match(String((results[1] as PromiseRejectedResult).reason), /lock timeout/);
  t.same(await notes(), ['first', 'last']);
});

t.test('a repository row lock is taken once per batch transaction, again after the unit that took it was rolled back', { skip: server.skip }, async (t) => {
  const { pool, writer, sent } = await setup(t);
  await pool.query("INSERT INTO notes (id) VALUES ('row')");
  const locks = () => sent.filter((text) => text.includes('FOR NO KEY UPDATE')).length;
  const results = await Promise.allSettled([
    writer.submit(async (tx) => {
      await tx.repos.lock('row');
      await tx.repos.lock('row');
    }),
    writer.submit(async (tx) => tx.repos.lock('row')),
    writer.submit(async () => {
      throw new Error('fails after the lock it did not need to take');
    }),
    writer.submit(async (tx) => tx.repos.lock('row')),
  ]);
  t.same(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  t.equal(locks(), 1, 'one lock for the whole batch: the first unit\'s subtransaction was kept');

  sent.length = 0;
  const second = await Promise.allSettled([
    writer.submit(async (tx) => tx.repos.add('other')),
    writer.submit(async (tx) => {
      await tx.repos.lock('row');
      throw new Error('rolled back with the lock it took');
    }),
    writer.submit(async (tx) => tx.repos.lock('row')),
  ]);
  t.same(second.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  t.equal(locks(), 2, 'the lock went with the rolled-back unit, so the next unit takes it again');

  // Outside a batch (the pool) nothing is remembered: the lock is the statement's.
  const client = await pool.connect();
  t.teardown(() => client.release());
  let ran = 0;
  await lockOnce(client, 'note row', async () => void (ran += 1));
  await lockOnce(client, 'note row', async () => void (ran += 1));
  t.equal(ran, 2);
});

t.test('a lock kept from an earlier unit survives a later unit that updated the row and was rolled back', { skip: server.skip }, async (t) => {
  // What skipping a repeated lock relies on: PostgreSQL (since 9.3) keeps the first lock when a later subtransaction
  // that updated the same row rolls back.
  const { pool } = await setup(t);
  await pool.query("INSERT INTO notes (id) VALUES ('row')");
  const holder = await pool.connect();
  const other = await pool.connect();
  t.teardown(() => {
    holder.release();
    other.release();
  });
  await holder.query('BEGIN; SAVEPOINT unit');
  await holder.query("SELECT 1 FROM notes WHERE id = 'row' FOR NO KEY UPDATE");
  await holder.query('SAVEPOINT unit');
  await holder.query("UPDATE notes SET id = id WHERE id = 'row'");
  await holder.query('ROLLBACK TO SAVEPOINT unit');
  await t.rejects(other.query("SELECT 1 FROM notes WHERE id = 'row' FOR NO KEY UPDATE NOWAIT"), /could not obtain lock/, 'still held');
  await holder.query('ROLLBACK');
});
