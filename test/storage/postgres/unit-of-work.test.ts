// The PostgreSQL unit writer on a real server: shared port behaviour, batches in flight (one running units), a bounded queue, lost transactions.
import { createServer, connect, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import pg from 'pg';
import { BatchRolledBackError, CommitOutcomeUnknownError, UnitContendedError, WriterOverloadedError } from '../../../storage/port/unit-errors.js';
import { connectPostgres, type PostgresPool } from '../../../storage/postgres/connection.js';
import { createPostgresUnitWriter, type PostgresUnitWriterOptions } from '../../../storage/postgres/unit-of-work.js';
import { usePostgres } from '../../helpers/postgres.js';
import { sharedUnitWriterCases, type NotesRepo } from '../unit-writer-cases.js';

const server = await usePostgres(t);

const bindNotes = (client: pg.PoolClient): NotesRepo & { pid(): Promise<number>; exec(sql: string): Promise<unknown> } => ({
  exec: (sql) => client.query(sql),
  add: async (id) => void (await client.query('INSERT INTO unit_notes (id) VALUES ($1)', [id])),
  count: async () => (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM unit_notes')).rows[0]!.n,
  pid: async () => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid,
});

async function database(t: Test, url?: string): Promise<{ pool: PostgresPool; url: string }> {
  const target = url ?? (await server.database(t));
  const pool = await connectPostgres({ url: target, max: 6 });
  t.teardown(() => pool.end());
  await pool.query('CREATE TABLE IF NOT EXISTS unit_notes (id text PRIMARY KEY)');
  return { pool, url: target };
}

async function notes(t: Test, options: Partial<PostgresUnitWriterOptions<ReturnType<typeof bindNotes>>> = {}) {
  const { pool, url } = await database(t);
  const writer = createPostgresUnitWriter({ pool, bindRepos: bindNotes, ...options });
  const committed = async () => (await pool.query<{ id: string }>('SELECT id FROM unit_notes ORDER BY id')).rows.map((r) => r.id);
  return { pool, url, writer, committed };
}

t.test('shared unit-writer behaviour on PostgreSQL', { skip: server.skip }, async (t) => sharedUnitWriterCases(t, (t) => notes(t)));

t.test('units of one loop turn share one transaction on one client; the next batch runs its units on another client while that one commits, never alongside its units', { skip: server.skip }, async (t) => {
  // No time cap here: unit 0's 50 ms must not end the first batch early.
  const { writer, committed, pool } = await notes(t, { maxBatch: 3, maxInFlight: 2, maxBatchMs: 10_000 });
  // The first batch's COMMIT takes 300 ms (a deferred trigger sleeps in it): time for the second to run meanwhile.
  await pool.query(`CREATE TABLE slow_commits (id int);
    CREATE FUNCTION sleep_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
    CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON slow_commits DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sleep_at_commit()`);
  const log: string[] = [];
  const units = Array.from({ length: 6 }, (_, i) =>
    writer.submit(async (tx) => {
      log.push(`start ${i}`);
      await tx.repos.add(`u${i}`);
      // Unit 0 takes 50 ms: a second batch running units alongside the first would start inside it.
      if (i === 0) await tx.repos.exec('INSERT INTO slow_commits SELECT 1 FROM pg_sleep(0.05)');
      const inFlight = writer.stats.inFlight;
      const pid = await tx.repos.pid();
      const txid = ((await tx.repos.exec('SELECT txid_current()::text AS x')) as pg.QueryResult<{ x: string }>).rows[0]!.x;
      log.push(`end ${i}`);
      return { pid, txid, inFlight };
    }),
  );
  const results = await Promise.all(units);
  t.same(log, [0, 1, 2, 3, 4, 5].flatMap((i) => [`start ${i}`, `end ${i}`]), 'no unit of the second batch ran alongside one of the first');
  const pids = results.map((r) => r.pid);
  t.equal(new Set(pids.slice(0, 3)).size, 1, 'the first three shared a client');
  t.equal(new Set(pids.slice(3)).size, 1, 'the next three shared another');
  t.not(pids[0], pids[3], 'two clients: the first was still committing');
  t.same(results.map((r) => r.inFlight), [1, 1, 1, 2, 2, 2], "the second batch's units ran while the first batch's COMMIT was in flight");
  const txids = results.map((r) => r.txid);
  t.ok(txids[0] === txids[2] && txids[3] === txids[5] && txids[0] !== txids[3], 'one transaction per batch');
  t.equal(writer.stats.batches, 2);
  t.same(writer.stats.samples.map(([units]) => units), [3, 3], 'one [units, seconds] sample per batch, for /metrics');
  t.ok(writer.stats.samples.every(([, seconds]) => seconds > 0));
  t.equal((await committed()).length, 6);
});

t.test('a full queue refuses at once with an overload error carrying Retry-After; nothing is written', { skip: server.skip }, async (t) => {
  const { writer, committed } = await notes(t, { maxQueued: 2 });
  const accepted = [writer.submit(async (tx) => tx.repos.add('a')), writer.submit(async (tx) => tx.repos.add('b'))];
  let ran = false;
  const refused = writer.submit(async (tx) => {
    ran = true;
    await tx.repos.add('c');
  });
  const error = await refused.catch((e: unknown) => e);
  t.ok(error instanceof WriterOverloadedError, 'an overload error');
  t.match(error, { code: 'WRITER_OVERLOADED', queued: 2, retryAfterSeconds: Number });
  t.ok((error as WriterOverloadedError).retryAfterSeconds >= 1);
  await Promise.all(accepted);
  t.notOk(ran);
  t.same(await committed(), ['a', 'b']);
  t.equal(writer.stats.refused, 1);
});

t.test('a lone unit that fails is rolled back with its transaction (no savepoint needed)', { skip: server.skip }, async (t) => {
  const { writer, committed } = await notes(t, { maxBatch: 1 });
  const results = await Promise.allSettled([
    writer.submit(async (tx) => tx.repos.add('a')),
    writer.submit(async (tx) => {
      await tx.repos.add('b');
      throw new Error('no');
    }),
    writer.submit(async (tx) => tx.repos.add('c')),
  ]);
  t.same(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  t.same(await committed(), ['a', 'c']);
  t.equal(writer.stats.batches, 3, 'one transaction each');
});

t.test('a unit that swallows a failed statement is rolled back, not committed half-done', { skip: server.skip }, async (t) => {
  for (const maxBatch of [1, 8]) {
    const { writer, committed, pool } = await notes(t);
    const w = maxBatch === 1 ? createPostgresUnitWriter({ pool, bindRepos: bindNotes, maxBatch }) : writer;
    await w.submit(async (tx) => tx.repos.add('dup'));
    const swallowed = w.submit(async (tx) => {
      await tx.repos.add('other');
      await Promise.resolve(tx.repos.add('dup')).catch(() => 'ignored');
      return 'returned anyway';
    });
    await t.rejects(swallowed, `maxBatch ${maxBatch}: rejected`);
    t.same(await committed(), ['dup'], `maxBatch ${maxBatch}: nothing of it committed`);
  }
});

t.test('a connection lost inside the batch rejects every unit of it as rolled back; the writer goes on', { skip: server.skip }, async (t) => {
  const { writer, committed, pool } = await notes(t);
  const first = writer.submit(async (tx) => tx.repos.add('before the loss'));
  const killer = writer.submit(async (tx) => {
    const pid = await tx.repos.pid();
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await tx.repos.add('after the loss');
  });
  await t.rejects(first, BatchRolledBackError, 'even the unit that had succeeded: its transaction is gone');
  await t.rejects(killer, BatchRolledBackError);
  t.same(await committed(), []);
  await writer.submit(async (tx) => tx.repos.add('next'));
  t.same(await committed(), ['next'], 'a fresh client for the next batch');
});

t.test('COMMIT refused by the server (a deferred constraint) rejects the batch as rolled back', { skip: server.skip }, async (t) => {
  const { writer, committed, pool } = await notes(t);
  await pool.query('CREATE TABLE deferred_pairs (k int, CONSTRAINT one_k UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)');
  const both = await Promise.allSettled([
    writer.submit(async (tx) => tx.repos.add('innocent')),
    ...[1, 2].map(() => writer.submit(async (tx) => void (await tx.repos.exec('INSERT INTO deferred_pairs VALUES (1)')))),
  ]);
  t.same(both.map((r) => r.status), ['rejected', 'rejected', 'rejected']);
  t.ok(both.every((r) => r.status === 'rejected' && r.reason instanceof BatchRolledBackError), 'all told: rolled back, nothing written');
  t.same(await committed(), []);
});

t.test('a connection lost during COMMIT rejects the batch with outcome unknown', { skip: server.skip }, async (t) => {
  const { url } = await database(t);
  const proxy = await cuttingProxy(new URL(url));
  t.teardown(proxy.close);
  const through = new URL(url);
  through.port = String(proxy.port);
  const { pool, committed } = await notesOver(t, through.toString(), url);
  const writer = createPostgresUnitWriter({ pool, bindRepos: bindNotes });
  proxy.cutOn('COMMIT');
  const results = await Promise.allSettled([writer.submit(async (tx) => tx.repos.add('a')), writer.submit(async (tx) => tx.repos.add('b'))]);
  t.ok(results.every((r) => r.status === 'rejected' && r.reason instanceof CommitOutcomeUnknownError), 'both told: unknown');
  t.same(await committed(), [], 'the proxy never forwarded the COMMIT (the writer could not know)');
});

/** A pool through `url` (the proxy) and committed ids read directly from `direct`. */
async function notesOver(t: Test, url: string, direct: string) {
  const pool = await connectPostgres({ url, max: 2 });
  t.teardown(() => pool.end().catch(() => {}));
  const reader = await connectPostgres({ url: direct, max: 1 });
  t.teardown(() => reader.end());
  const committed = async () => (await reader.query<{ id: string }>('SELECT id FROM unit_notes ORDER BY id')).rows.map((r) => r.id);
  return { pool, committed };
}

/**
 * A TCP proxy to the server that, once armed, drops the connection instead of forwarding a client message holding
 * `word` (PostgreSQL's wire format carries a simple query's text verbatim): the client sees a connection lost with
 * its COMMIT unanswered, exactly as on a network failure.
 */
async function cuttingProxy(target: URL): Promise<{ port: number; cutOn(word: string): void; close(): Promise<void> }> {
  let word: string | null = null;
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.on('data', (chunk: Buffer) => {
      if (word !== null && chunk.includes(word)) {
        client.destroy();
        upstream.destroy();
      } else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as { port: number }).port,
    cutOn: (next) => void (word = next),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => proxy.close(() => resolve()));
    },
  };
}

/** The error PostgreSQL raises in the victim of a deadlock (SQLSTATE 40P01). */
const deadlock = (): Error => Object.assign(new pg.DatabaseError('deadlock detected', 0, 'error'), { code: '40P01', severity: 'ERROR' });

t.test('a unit aborted by a deadlock: run again in a later transaction when declared rerunnable, else refused as contended', { skip: server.skip }, async (t) => {
  const { writer, committed } = await notes(t);
  let runs = 0;
  const rerun = writer.submit(
    async (tx) => {
      runs += 1;
      await tx.repos.add(`r${runs}`);
      if (runs === 1) throw deadlock();
      return runs;
    },
    { savepoint: false },
  );
  const neighbour = writer.submit(async (tx) => tx.repos.add('n'));
  const plain = writer.submit(async () => {
    throw deadlock();
  });
  let stubborn = 0;
  const hopeless = writer.submit(
    async () => {
      stubborn += 1;
      throw deadlock();
    },
    { savepoint: false },
  );
  const [reran, , refused, gaveUp] = await Promise.allSettled([rerun, neighbour, plain, hopeless]);
  t.same(reran, { status: 'fulfilled', value: 2 }, 'the rerunnable unit ran twice and its second run committed');
  t.type(refused.status === 'rejected' && refused.reason, UnitContendedError, 'a unit not declared rerunnable is refused as contended');
  t.type(gaveUp.status === 'rejected' && gaveUp.reason, UnitContendedError, 'a rerunnable unit contended on every run is refused in the end');
  t.equal(stubborn, 3, 'three runs at most');
  t.same(await committed(), ['n', 'r2'], "only the committed run's write stays");
});
