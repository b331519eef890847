// The unit writer's fence checks on a real server: they ride BEGIN/SAVEPOINT, a lease is checked once per transaction, stale units are refused.
import t, { type Test } from 'tap';
import type pg from 'pg';
import { connectPostgres } from '../../../storage/postgres/connection.js';
import { runFenced, type Fence } from '../../../storage/postgres/fence.js';
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
    return { add: async (id: string) => void (await client.query('INSERT INTO notes (id) VALUES ($1)', [id])) };
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
