// Service processes on one PostgreSQL (issue 16 item 2): a flow run cancelled on another node, a cancel racing a queued execution's start.
/*
 * Same harness as multi-node-cancel.test.ts: children running test/e2e/crash.child.ts on one throwaway database with
 * shared master keys and one loopback crm upstream whose reads the test holds open. The race is made certain with row
 * locks the test takes on the database itself: the cancel on B waits on one, the start on A then waits on the
 * cancel's, and the test lets go only once both wait (or once A called upstream for the cancelled execution: the bug).
 */
import { Agent, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import t, { type Test } from 'tap';
import { createChildPool, send, type LiveChild } from '../helpers/crash-harness.js';
import { usePostgres } from '../helpers/postgres.js';
import { lockWaiters } from '../helpers/postgres-races.js';
import { useSharedMasterKeys } from '../helpers/shared-master-keys.js';
import { followSession, type Frame, type FollowedStream } from '../helpers/session-stream.js';
import { startRecordingUpstream, type RecordedRequest } from '../runtime/tools/recording-upstream.js';
import { conversationWorkspace, crmCredentials, crmResponder } from '../http/sessions/conversation-fixture.js';

t.setTimeout(120_000);
const db = await usePostgres(t);
/** The default lease renews every 5 s: an abort well before that came from the seize notice, not a renewal. */
const AT_ONCE_MS = 3_000;
const LOOKUP = '{"id": "c-1"}';

const events = (frames: Frame[]) => frames.filter((f) => f.type !== 'snapshot');

/** The conversation workspace with an API trigger that starts the `enrich` flow alone. */
function workspace(baseUrl: string): any {
  const manifest = conversationWorkspace(baseUrl);
  manifest.organizations[0].triggers.push({ ref: 'enrich-now', type: 'api', domain: 'sales', name: 'Enrich now', subscribers: ['enrich'], active: true });
  return manifest;
}

t.test('a flow run cancelled on another node; a cancel racing the start of a queued execution', { skip: db.skip }, async (t) => {
  const databaseUrl = await db.database(t);
  useSharedMasterKeys(t);
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  /** GETs are held open while `holding` answers; `dropped` resolves `onDrop` for a held call the service closed. */
  const held: ServerResponse[] = [];
  let onDrop = () => {};
  const holding = (request: RecordedRequest, res: ServerResponse): void => {
    if (request.method !== 'GET') return crmResponder(request, res);
    held.push(res);
    res.on('close', () => {
      if (!res.writableEnded) onDrop();
    });
  };
  const pool = createChildPool();
  const nodes: LiveChild[] = [];
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  // The database is dropped (its connections terminated) by a teardown that runs before this pool ends.
  sql.on('error', () => {});
  t.teardown(async () => {
    for (const res of held) res.destroy();
    await Promise.all(nodes.map((node) => node.stop()));
    await pool.close();
    await sql.end();
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  t.teardown(() => agent.destroy());
  for (const manifest of [workspace(upstream.baseUrl), undefined]) {
    nodes.push(await pool.boot(() => ({ dbPath: 'unused.db', databaseUrl, clockOffsetMs: 0, manifest }), { last: manifest === undefined }));
  }
  const [a, b] = nodes as [LiveChild, LiveChild];
  const refs = a.refs;
  const api = (node: LiveChild, method: string, path: string, body?: unknown) =>
    send(agent, node.port, method, `/api/v1${path}`, { authorization: `Bearer ${refs['ada-key']}` }, body);
  const count = (method: string) => upstream.received.filter((r) => r.method === method).length;
  const holderOf = async (sessionId: string): Promise<string | null> =>
    (await sql.query('SELECT holder FROM resource_leases WHERE resource = $1', [`session:${sessionId}`])).rows[0]?.holder ?? null;
  const runsOn = async (node: LiveChild, sessionId: string) => ((await holderOf(sessionId)) ?? '').includes(`-${node.child.pid}-`);
  const execution = async (id: string) =>
    (await sql.query('SELECT status, error_code, started_at FROM executions WHERE id = $1', [id])).rows[0] as { status: string; error_code: string | null; started_at: unknown };
  const trailOf = async (executionId: string) =>
    (await sql.query(`SELECT type FROM session_events WHERE payload::jsonb ->> 'executionId' = $1 ORDER BY seq`, [executionId])).rows.map((r) => r.type as string);
  const heldGet = async (since: number) => {
    while (count('GET') === since) await upstream.nextRequest();
  };
  const follow = (sessionId: string) => {
    const streams = [followSession(a.port, sessionId, refs['ada-key']!, 0), followSession(b.port, sessionId, refs['ada-key']!, 0)];
    t.teardown(() => streams.forEach((s) => s.close()));
    return streams as [FollowedStream, FollowedStream];
  };
  const denseWithOne = (t: Test, streams: FollowedStream[], type: string) => {
    for (const [name, stream] of [['A', streams[0]!], ['B', streams[1]!]] as const) {
      const seen = events(stream.frames);
      t.same(seen.map((f) => f.seq), seen.map((_f, i) => i + 1), `${name}'s stream: dense seqs from 1`);
      t.equal(seen.filter((f) => f.type === type).length, 1, `${name}'s stream: one ${type}`);
    }
    t.same(events(streams[0]!.frames), events(streams[1]!.frames), 'both nodes streamed the same trail');
  };

  t.test('a flow run held in its upstream call on A, cancelled via B', async (t) => {
    upstream.respond(holding);
    const gets = count('GET');
    const fired = await api(a, 'POST', '/triggers/fire', { triggerId: refs['enrich-now'], input: { id: 'c-1' } });
    t.equal(fired.status, 202, fired.text);
    const { sessionId } = (fired.json.sessions as Array<{ sessionId: string }>)[0]!;
    await heldGet(gets);
    t.ok(await runsOn(a, sessionId), 'A holds the session\'s lease: the flow runs there');
    const streams = follow(sessionId);
    const aborted = new Promise<void>((resolve) => (onDrop = resolve));
    const sentAt = Date.now();
    const cancelled = await api(b, 'POST', `/agents/sessions/${sessionId}/cancel`, {});
    t.equal(cancelled.status, 200, cancelled.text);
    const { executionId } = cancelled.json as { executionId: string };
    t.same(cancelled.json, { executionId, status: 'cancelled' }, 'the spec\'s answer, as on one node');
    // Bounded: a cancel that did not reach A would otherwise hold the test until its timeout.
    await Promise.race([aborted, sleep(2 * AT_ONCE_MS)]);
    const abortMs = Date.now() - sentAt;
    t.ok(abortMs < AT_ONCE_MS, `A closed its upstream call ${abortMs} ms after the cancel was sent (not at a renewal)`);

    const repeat = await api(a, 'POST', `/agents/sessions/${sessionId}/cancel`, { executionId });
    t.same([repeat.status, repeat.json], [200, { executionId, status: 'cancelled' }], 'repeated on A: the same answer');
    await Promise.all(streams.map((s) => s.until((f) => f.some((x) => x.type === 'turn.completed'))));
    await Promise.all([a.idle(), b.idle()]);
    denseWithOne(t, streams, 'turn.completed');
    t.equal(events(streams[0].frames).at(-1)?.type, 'turn.completed', 'nothing after the terminal event');
    t.match(await execution(executionId), { status: 'failed', error_code: 'CANCELLED' });
    t.same([count('GET') - gets, count('PATCH')], [1, 0], 'the cancelled run made no call after the aborted one');
    t.equal(await holderOf(sessionId), null, 'no node holds the session any more');

    // The flow runs again, to completion.
    upstream.respond(crmResponder);
    const again = await api(b, 'POST', '/triggers/fire', { triggerId: refs['enrich-now'], input: { id: 'c-1' } });
    t.equal(again.status, 202, again.text);
    const next = (again.json.sessions as Array<{ sessionId: string }>)[0]!.sessionId;
    await Promise.all([a.idle(), b.idle()]);
    const rows = (await sql.query('SELECT status FROM executions WHERE session_id = $1', [next])).rows;
    t.same(rows, [{ status: 'completed' }], 'the next run of the flow completed');
  });

  t.test('a queued execution cancelled via B while A finishes the turn ahead of it and starts it', async (t) => {
    upstream.respond(holding);
    const gets = count('GET');
    const opened = await api(a, 'POST', `/agents/${refs.lookup}/sessions`, { message: LOOKUP, callerCredentials: crmCredentials() });
    t.equal(opened.status, 202, opened.text);
    const { sessionId, executionId: first } = opened.json as { sessionId: string; executionId: string };
    await heldGet(gets);
    t.ok(await runsOn(a, sessionId), 'A runs the first turn, held in its upstream call');
    const queued = await api(a, 'POST', `/agents/sessions/${sessionId}/messages`, { message: LOOKUP, callerCredentials: crmCredentials() });
    t.equal(queued.status, 200, queued.text);
    const second = queued.json.executionId as string;
    const streams = follow(sessionId);

    // The test's transaction holds the queued execution's caller grant: the cancel's unit (which deletes it) waits.
    const lock = await sql.connect();
    t.teardown(() => lock.release());
    await lock.query('BEGIN');
    t.equal((await lock.query('SELECT 1 FROM caller_grants WHERE execution_id = $1 FOR UPDATE', [second])).rowCount, 1, 'the queued turn holds a grant');
    const cancelling = api(b, 'POST', `/agents/sessions/${sessionId}/cancel`, { executionId: second });
    await lockWaiters(sql, 1);
    // The turn ahead finishes: A settles it, then picks the queued execution and tries to start it.
    upstream.respond(crmResponder);
    crmResponder({ method: 'GET', pathname: '/contacts/c-1' } as RecordedRequest, held.pop()!);
    for (const deadline = Date.now() + 15_000; ; ) {
      const waiting = Number((await sql.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n);
      if (waiting >= 2 || count('GET') > gets + 1) break;
      if (Date.now() > deadline) throw new Error('neither A\'s start waited on the cancel nor A called upstream');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await lock.query('COMMIT');
    const answer = await cancelling;
    t.same([answer.status, answer.json], [200, { executionId: second, status: 'cancelled' }], 'the cancel answers as on one node');
    await Promise.all(streams.map((s) => s.until((f) => f.filter((x) => x.type === 'turn.completed').length === 2)));
    await Promise.all([a.idle(), b.idle()]);

    t.equal(count('GET') - gets, 1, 'the cancelled execution made no upstream call');
    t.match(await execution(first), { status: 'completed' });
    t.match(await execution(second), { status: 'failed', error_code: 'CANCELLED', started_at: null });
    t.same(await trailOf(second), ['turn.completed'], 'the cancelled execution: one terminal event, never started');
    denseWithOne(t, streams, 'turn.started');
    t.equal(await holderOf(sessionId), null, 'no node holds the session any more');

    // The session moves on: the next message runs to completion.
    const third = await api(b, 'POST', `/agents/sessions/${sessionId}/messages`, { message: LOOKUP, callerCredentials: crmCredentials() });
    t.equal(third.status, 200, third.text);
    await Promise.all(streams.map((s) => s.until((f) => f.filter((x) => x.type === 'turn.completed').length === 3)));
    await Promise.all([a.idle(), b.idle()]);
    t.match(await execution(third.json.executionId), { status: 'completed' });
    t.equal(count('GET') - gets, 2, 'the next turn read once');
  });
});
