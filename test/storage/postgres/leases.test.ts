// Leases with fencing tokens over two connections: one holder at a time, takeover after expiry with a higher token, stale writes refused.
import t, { type Test } from 'tap';
import { connectPostgres, type PostgresPool } from '../../../storage/postgres/connection.js';
import { assertFenced, createLeases, StaleLeaseError } from '../../../storage/postgres/leases.js';
import { migratePostgres } from '../../../storage/postgres/migrate.js';
import { usePostgres } from '../../helpers/postgres.js';

const pg = await usePostgres(t);
const TTL = 10_000;

/** Two nodes: each its own pool (its own connections) on one fresh, migrated database. */
async function twoNodes(t: Test): Promise<[PostgresPool, PostgresPool]> {
  const url = await pg.database(t);
  const a = await connectPostgres({ url, applicationName: 'node-a' });
  const b = await connectPostgres({ url, applicationName: 'node-b' });
  t.teardown(async () => {
    await a.end();
    await b.end();
  });
  await migratePostgres(a);
  await a.query('CREATE TABLE turns (session_id text, written_by text, token bigint)');
  return [a, b];
}

/** A write made under a lease: fenced first, in the same transaction. */
async function fencedWrite(pool: PostgresPool, resource: string, token: number, by: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await assertFenced(client, resource, token);
    await client.query('INSERT INTO turns VALUES ($1, $2, $3)', [resource, by, token]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

t.test('one holder at a time; expiry hands over with a higher token; the old holder can neither renew nor write', { skip: pg.skip }, async (t) => {
  const [a, b] = await twoNodes(t);
  const [nodeA, nodeB] = [createLeases(a), createLeases(b)];
  const first = await nodeA.take('session:s1', 'A', TTL, 1_000);
  t.match(first, { holder: 'A', token: 1, expiresAt: 11_000 });
  t.equal(await nodeB.take('session:s1', 'B', TTL, 5_000), null, 'B cannot take a running lease');
  const renewed = await nodeA.renew(first!, TTL, 9_000);
  t.match(renewed, { token: 1, expiresAt: 19_000 }, 'a renewal keeps the token');
  t.equal(await nodeB.take('session:s1', 'B', TTL, 12_000), null, 'the renewal moved the expiry');

  const second = await nodeB.take('session:s1', 'B', TTL, 19_000);
  t.match(second, { holder: 'B', token: 2 }, 'taken over at expiry, with a higher token');
  t.equal(await nodeA.renew(first!, TTL, 19_001), null, 'A learns it lost the lease');
  const stale: unknown = await fencedWrite(a, 'session:s1', first!.token, 'A').catch((e: unknown) => e);
  t.type(stale, StaleLeaseError);
  await fencedWrite(b, 'session:s1', second!.token, 'B');
  t.same((await a.query('SELECT written_by, token FROM turns')).rows, [{ written_by: 'B', token: 2 }], 'only the current holder wrote');

  t.equal(await nodeA.release(first!, 19_002), false, 'a lost lease cannot be released');
  t.equal(await nodeB.release(second!, 20_000), true);
  t.equal(await nodeB.current('session:s1'), null);
  t.match(await nodeA.take('session:s1', 'A', TTL, 20_001), { holder: 'A', token: 3 }, 'free at once after release; the token still grows');
  t.type(await fencedWrite(b, 'session:s1', 2, 'B').catch((e: unknown) => e), StaleLeaseError, 'a released holder is fenced too');
});

t.test('takers racing on two connections: exactly one wins each resource', { skip: pg.skip }, async (t) => {
  const [a, b] = await twoNodes(t);
  const [nodeA, nodeB] = [createLeases(a), createLeases(b)];
  const resources = Array.from({ length: 50 }, (_, i) => `timer:${i}`);
  const results = await Promise.all(resources.flatMap((r) => [nodeA.take(r, 'A', TTL, 0), nodeB.take(r, 'B', TTL, 0)]));
  for (let i = 0; i < resources.length; i++) {
    const won = [results[2 * i], results[2 * i + 1]].filter((lease) => lease !== null);
    t.equal(won.length, 1, `${resources[i]}: one winner`);
  }
});

t.test('a takeover waits for a fenced write in flight, then gets the next token', { skip: pg.skip }, async (t) => {
  const [a, b] = await twoNodes(t);
  const lease = await createLeases(a).take('flow:f1', 'A', TTL, 0);
  const writer = await a.connect();
  await writer.query('BEGIN');
  await assertFenced(writer, 'flow:f1', lease!.token);
  const takeover = createLeases(b).take('flow:f1', 'B', TTL, TTL + 1);
  // B's upsert is blocked on the row A's transaction holds FOR SHARE: seen as a lock wait, not guessed by a sleep.
  const giveUpAt = Date.now() + 10_000;
  for (;;) {
    const { rows } = await a.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'node-b' AND wait_event_type = 'Lock'");
    if (rows[0].n === 1) break;
    if (Date.now() > giveUpAt) throw new Error('the takeover never waited on the fenced write');
    await new Promise((resolve) => setImmediate(resolve));
  }
  await writer.query("INSERT INTO turns VALUES ('flow:f1', 'A', $1)", [lease!.token]);
  await writer.query('COMMIT');
  writer.release();
  t.match(await takeover, { holder: 'B', token: 2 });
  t.same((await a.query('SELECT written_by FROM turns')).rows, [{ written_by: 'A' }], "A's write, made while it held the lease, stands");
});

t.test('seize (a cancel on another node): takes a live lease with the next token, after the fenced write in flight; the old holder is fenced and told at commit', { skip: pg.skip }, async (t) => {
  const [a, b] = await twoNodes(t);
  const [nodeA, nodeB] = [createLeases(a), createLeases(b)];
  const listener = await a.connect();
  t.teardown(() => listener.release());
  const heard: string[] = [];
  listener.on('notification', (message) => heard.push(`${message.channel} ${message.payload}`));
  await listener.query('LISTEN seized_here');

  const held = await nodeA.take('session:s1', 'A', TTL, 0);
  const writer = await a.connect();
  await writer.query('BEGIN');
  await assertFenced(writer, 'session:s1', held!.token);
  const seizing = nodeB.seize('session:s1', 'B', TTL, 1_000, 'seized_here');
  const giveUpAt = Date.now() + 10_000;
  for (;;) {
    const { rows } = await a.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'node-b' AND wait_event_type = 'Lock'");
    if (rows[0].n === 1) break;
    if (Date.now() > giveUpAt) throw new Error('the seize never waited on the fenced write');
    await new Promise((resolve) => setImmediate(resolve));
  }
  await writer.query("INSERT INTO turns VALUES ('session:s1', 'A', $1)", [held!.token]);
  await writer.query('COMMIT');
  writer.release();
  const seized = await seizing;
  t.match(seized, { holder: 'B', token: 2, expiresAt: 1_000 + TTL }, 'taken while A\'s lease still ran, with a higher token');
  t.type(await fencedWrite(a, 'session:s1', held!.token, 'A').catch((e: unknown) => e), StaleLeaseError, 'A\'s later writes are refused');
  t.equal(await nodeA.renew(held!, TTL, 1_001), null, 'A\'s next renewal learns it lost the lease');
  while (heard.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  t.same(heard, ['seized_here session:s1'], 'the channel is told the resource once, after the commit');

  t.match(await nodeB.seize('session:s1', 'B', TTL, 2_000, 'seized_here'), { holder: 'B', token: 2 }, 'seizing a lease this holder already runs keeps its token');
  t.same((await a.query('SELECT written_by, token FROM turns')).rows, [{ written_by: 'A', token: 1 }], 'only the write made under the live lease stands');
});
