// LISTEN/NOTIFY session signals between two nodes: delivered at commit only, in commit order, and resumed (with a resync) after a lost connection.
import t, { type Test } from 'tap';
import { connectPostgres, PostgresUnreachableError, type PostgresPool } from '../../../storage/postgres/connection.js';
import {
  decodeSignal,
  encodeSignal,
  listenForSessionSignals,
  notifySessionEvents,
  SESSION_SEIZED_CHANNEL,
  type SessionSignal,
  type SessionSignalListener,
} from '../../../storage/postgres/session-notify.js';
import { createLeases } from '../../../storage/postgres/leases.js';
import { migratePostgres } from '../../../storage/postgres/migrate.js';
import { usePostgres } from '../../helpers/postgres.js';

const pg = await usePostgres(t);

/** A listener that records what it hears, with a way to wait for the nth signal. */
async function recordingListener(t: Test, url: string, name: string) {
  const heard: SessionSignal[] = [];
  const errors: Error[] = [];
  let resyncs = 0;
  let waiters: Array<() => void> = [];
  const listener: SessionSignalListener = await listenForSessionSignals({
    url,
    applicationName: name,
    retryMs: { first: 20, max: 200 },
    heartbeatMs: 1_000,
    onSignal: (signal) => {
      heard.push(signal);
      for (const wake of waiters) wake();
      waiters = [];
    },
    onResync: () => {
      resyncs += 1;
      for (const wake of waiters) wake();
      waiters = [];
    },
    onConnectionError: (error) => errors.push(error),
  });
  t.teardown(() => listener.close());
  const until = async (done: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  };
  return { heard, errors, listener, resyncs: () => resyncs, until };
}

async function pool(t: Test, url: string): Promise<PostgresPool> {
  const p = await connectPostgres({ url, applicationName: 'writer' });
  t.teardown(() => p.end());
  return p;
}

async function inTransaction(p: PostgresPool, work: (client: { query(text: string, values?: unknown[]): Promise<unknown> }) => Promise<void>, commit = true): Promise<void> {
  const client = await p.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
  } finally {
    client.release();
  }
}

t.test('the payload carries the seq first, so any session id survives; garbage is ignored', async (t) => {
  for (const sessionId of ['ses_1', 'with space', 'ü 😀 ', '']) {
    t.same(decodeSignal(encodeSignal({ sessionId, seq: 42 })), { sessionId, seq: 42 });
  }
  for (const payload of ['', 'x ses_1', '0 ses_1', '-1 ses_1', '1.5 ses_1', '12', ' ses_1', '99999999999999999999 s']) {
    t.equal(decodeSignal(payload), null, JSON.stringify(payload));
  }
  t.end();
});

t.test('every node hears a committed notification, in commit order; a rolled-back one never arrives', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const writer = await pool(t, url);
  const nodeA = await recordingListener(t, url, 'node-a');
  const nodeB = await recordingListener(t, url, 'node-b');

  await inTransaction(writer, (tx) => notifySessionEvents(tx, { sessionId: 'ses_rolled_back', seq: 1 }), false);
  // Two transactions open at once; the one that commits first is heard first, whatever order they notified in.
  const first = await writer.connect();
  const second = await writer.connect();
  await first.query('BEGIN');
  await second.query('BEGIN');
  await notifySessionEvents(first, { sessionId: 'ses_a', seq: 3 });
  await notifySessionEvents(second, { sessionId: 'ses_b', seq: 7 });
  t.same(nodeA.heard, [], 'nothing is heard before a commit');
  await second.query('COMMIT');
  await first.query('COMMIT');
  first.release();
  second.release();
  await inTransaction(writer, async (tx) => {
    await notifySessionEvents(tx, { sessionId: 'ses_a', seq: 4 });
    await notifySessionEvents(tx, { sessionId: 'ses_a', seq: 5 });
  });

  const expected = [
    { sessionId: 'ses_b', seq: 7 },
    { sessionId: 'ses_a', seq: 3 },
    { sessionId: 'ses_a', seq: 4 },
    { sessionId: 'ses_a', seq: 5 },
  ];
  for (const node of [nodeA, nodeB]) {
    await node.until(() => node.heard.length >= expected.length, 'four signals');
    t.same(node.heard, expected);
  }
  t.equal(nodeA.resyncs(), 0, 'no resync without a lost connection');
});

t.test('a killed listening connection is replaced: a resync is asked for, and later signals arrive', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const writer = await pool(t, url);
  const node = await recordingListener(t, url, 'node-k');
  t.equal(node.listener.listening, true);

  const killed = await writer.query<{ ok: boolean }>(
    "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'node-k-listen'",
  );
  t.same(killed.rows, [{ ok: true }], 'the listening backend was terminated');
  await node.until(() => node.resyncs() === 1, 'the resync after reconnecting');
  t.ok(node.errors.length >= 1, 'the loss was reported');
  t.equal(node.listener.reconnects, 1);
  t.equal(node.listener.listening, true);

  await inTransaction(writer, (tx) => notifySessionEvents(tx, { sessionId: 'ses_after', seq: 9 }));
  await node.until(() => node.heard.length === 1, 'the signal after the reconnect');
  t.same(node.heard, [{ sessionId: 'ses_after', seq: 9 }]);

  await node.listener.close();
  t.equal(node.listener.listening, false);
  const left = await writer.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'node-k-listen'");
  t.same(left.rows, [{ n: 0 }], 'close leaves no connection behind');
});

t.test('a server that cannot be reached at start is PostgresUnreachableError, without the password', async (t) => {
  const error: unknown = await listenForSessionSignals({
    url: 'postgres://switchyard:hunter2-secret@127.0.0.1:1/nowhere',
    connectTimeoutMs: 2_000,
    onSignal: () => {},
    onResync: () => {},
  }).catch((e: unknown) => e);
  t.type(error, PostgresUnreachableError);
  t.match((error as Error).message, /127\.0\.0\.1:1\/nowhere/);
  t.notMatch(String((error as Error).message) + String(((error as Error).cause as Error)?.message), /hunter2/);
});

t.test('a seized session lease is heard on the same connection as onSeized(sessionId), never as an event signal', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const writer = await pool(t, url);
  await migratePostgres(writer);
  const seized: string[] = [];
  const signals: SessionSignal[] = [];
  let heard = () => {};
  const listener = await listenForSessionSignals({ url, applicationName: 'seize-listener', onSignal: (s) => signals.push(s), onResync: () => {}, onSeized: (id) => (seized.push(id), heard()) });
  t.teardown(() => listener.close());
  const told = new Promise<void>((resolve) => (heard = resolve));
  await createLeases(writer).seize('session:s-9', 'node-x', 10_000, 0, SESSION_SEIZED_CHANNEL);
  await told;
  t.same(seized, ['s-9']);
  t.same(signals, [], 'no event signal');
});
