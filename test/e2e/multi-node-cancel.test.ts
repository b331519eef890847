// Service processes on one PostgreSQL (issue 16 item 2): a cancel on another node than the turn's, a takeover after SIGKILL mid-call.
/*
 * Same harness as multi-node.test.ts: children running test/e2e/crash.child.ts on one throwaway database with shared
 * master keys and one loopback crm upstream whose reads are held open (the turn's upstream call in flight). Which
 * node runs a turn is read from its lease row (`resource_leases.holder` names the process id).
 */
import { Agent, type ServerResponse } from 'node:http';
import pg from 'pg';
import t from 'tap';
import { createChildPool, send, type LiveChild } from '../helpers/crash-harness.js';
import { usePostgres } from '../helpers/postgres.js';
import { useSharedMasterKeys } from '../helpers/shared-master-keys.js';
import { followSession, type Frame } from '../helpers/session-stream.js';
import { startRecordingUpstream, type RecordedRequest } from '../runtime/tools/recording-upstream.js';
import { conversationWorkspace, crmCredentials, crmResponder } from '../http/sessions/conversation-fixture.js';

t.setTimeout(120_000);
const db = await usePostgres(t);
const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';
/** The default lease renews every 5 s: an abort well before that came from the seize notice, not a renewal. */
const AT_ONCE_MS = 3_000;

const events = (frames: Frame[]) => frames.filter((f) => f.type !== 'snapshot');

t.test('cancel on another node, takeover after SIGKILL mid-call: the spec answer, aborted upstream, one trail with dense seqs', { skip: db.skip }, async (t) => {
  const databaseUrl = await db.database(t);
  useSharedMasterKeys(t);
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  /** GETs (the turn's first tool call) are held open; `dropped` counts those the service closed unanswered. */
  const held: ServerResponse[] = [];
  let dropped = 0;
  let onDrop = () => {};
  const holding = (request: RecordedRequest, res: ServerResponse): void => {
    if (request.method !== 'GET') return crmResponder(request, res);
    held.push(res);
    res.on('close', () => {
      if (res.writableEnded) return;
      dropped += 1;
      onDrop();
    });
  };
  upstream.respond(holding);
  const pool = createChildPool();
  const nodes: LiveChild[] = [];
  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  t.teardown(async () => {
    for (const res of held) res.destroy();
    await Promise.all(nodes.map((node) => node.stop()));
    await pool.close();
    await sql.end();
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  t.teardown(() => agent.destroy());

  const boot = async (extra: { manifest?: unknown; sessionLeaseMs?: number } = {}, last = false): Promise<LiveChild> => {
    const node = await pool.boot(() => ({ dbPath: 'unused.db', databaseUrl, clockOffsetMs: 0, ...extra }), { last });
    nodes.push(node);
    return node;
  };
  const a = await boot({ manifest: conversationWorkspace(upstream.baseUrl) });
  const refs = a.refs;
  const b = await boot();
  const api = (node: LiveChild, method: string, path: string, body?: unknown) =>
    send(agent, node.port, method, `/api/v1${path}`, { authorization: `Bearer ${refs['ada-key']}` }, body);
  const count = (method: string) => upstream.received.filter((r) => r.method === method).length;
  const holderOf = async (sessionId: string): Promise<string | null> =>
    (await sql.query('SELECT holder FROM resource_leases WHERE resource = $1', [`session:${sessionId}`])).rows[0]?.holder ?? null;
  const runsOn = async (node: LiveChild, sessionId: string) => ((await holderOf(sessionId)) ?? '').includes(`-${node.child.pid}-`);
  /** Opens a session on `node` and resolves once its turn's read is held upstream. */
  const openHeld = async (node: LiveChild) => {
    const gets = count('GET');
    const opened = await api(node, 'POST', `/agents/${refs.upgrader}/sessions`, { message: UPGRADE, callerCredentials: crmCredentials() });
    t.equal(opened.status, 202, opened.text);
    while (count('GET') === gets) await upstream.nextRequest();
    return opened.json as { sessionId: string; executionId: string };
  };

  // 1. A turn runs on A, held in its upstream call; the cancel arrives on B.
  const { sessionId, executionId } = await openHeld(a);
  t.ok(await runsOn(a, sessionId), 'A holds the session\'s lease: its turn runs there');
  const onA = followSession(a.port, sessionId, refs['ada-key']!, 0);
  const onB = followSession(b.port, sessionId, refs['ada-key']!, 0);
  t.teardown(() => {
    onA.close();
    onB.close();
  });
  const droppedBefore = dropped;
  const aborted = new Promise<void>((resolve) => (onDrop = resolve));
  const sentAt = Date.now();
  const cancelled = await api(b, 'POST', `/agents/sessions/${sessionId}/cancel`, {});
  t.equal(cancelled.status, 200, cancelled.text);
  t.same(cancelled.json, { executionId, status: 'cancelled' }, 'the spec\'s answer, as on one node');
  await aborted;
  const abortMs = Date.now() - sentAt;
  t.ok(abortMs < AT_ONCE_MS, `A aborted its upstream call ${abortMs} ms after the cancel was sent (not at a renewal)`);
  t.equal(dropped, droppedBefore + 1, 'the held call was closed unanswered');

  const repeat = await api(a, 'POST', `/agents/sessions/${sessionId}/cancel`, { executionId });
  t.same([repeat.status, repeat.json], [200, { executionId, status: 'cancelled' }], 'repeated on A: the same answer');
  await Promise.all([onA.until((f) => f.some((x) => x.type === 'turn.completed')), onB.until((f) => f.some((x) => x.type === 'turn.completed'))]);
  await Promise.all([a.idle(), b.idle()]);
  for (const [name, stream] of [['A', onA], ['B', onB]] as const) {
    const seen = events(stream.frames);
    t.same(seen.map((f) => f.seq), seen.map((_f, i) => i + 1), `${name}'s stream: dense seqs from 1`);
    t.equal(seen.filter((f) => f.type === 'turn.completed').length, 1, `${name}'s stream: one turn.completed`);
    t.equal(seen.at(-1)?.type, 'turn.completed', `${name}'s stream: nothing after it`);
  }
  t.same(events(onA.frames), events(onB.frames), 'both nodes streamed the same trail');
  t.match((await api(a, 'GET', `/agents/sessions/${sessionId}`)).json.latestTurn, { executionId, errorCode: 'CANCELLED' });
  t.same([count('GET'), count('PATCH')], [1, 0], 'the cancelled turn made no call after the aborted one');
  t.equal(await holderOf(sessionId), null, 'no node holds the session any more');

  // The session goes on: the next message runs (on whichever node takes it) to its approval.
  upstream.respond(crmResponder);
  const next = await api(a, 'POST', `/agents/sessions/${sessionId}/messages`, { message: UPGRADE, callerCredentials: crmCredentials() });
  t.equal(next.status, 200, next.text);
  await onB.until((f) => f.filter((x) => x.type === 'turn.suspended').length === 1);
  t.equal(count('GET'), 2, 'the next turn read once');
  onA.close();
  onB.close();

  // 2. SIGKILL the node in the middle of a turn's upstream call: after its 3 s lease another node resumes the turn
  // from its last committed step, as a restart does (the call whose outcome was not recorded is made again), and a
  // stream on a third node sees one trail with dense seqs.
  upstream.respond(holding);
  const lease = { sessionLeaseMs: 3_000 };
  const [d, e] = [await boot(lease), await boot(lease, true)];
  const taken = await openHeld(d);
  t.ok(await runsOn(d, taken.sessionId), 'D runs the turn');
  const onC = followSession(b.port, taken.sessionId, refs['ada-key']!, 0);
  t.teardown(() => onC.close());
  await onC.until((f) => f.some((x) => x.type === 'turn.started'));
  const getsBefore = count('GET');
  await d.kill();
  nodes.splice(nodes.indexOf(d), 1);
  const killedAt = Date.now();
  upstream.respond(crmResponder);
  await onC.until((f) => f.some((x) => x.type === 'turn.suspended'), 40_000);
  const resumedMs = Date.now() - killedAt;
  t.comment(`resumed and parked ${resumedMs} ms after the SIGKILL`);
  await Promise.all([a.idle(), b.idle(), e.idle()]);
  t.equal(await holderOf(taken.sessionId), null, 'parked on its approval, the resumed turn holds no lease');
  t.equal(count('GET'), getsBefore + 1, 'the read in flight at the crash was made again, once');
  t.equal(count('PATCH'), 0, 'the gated write waits for its approval');
  const trail = events(onC.frames);
  t.comment(`trail: ${trail.map((f) => f.type).join(', ')}`);
  t.same(trail.map((f) => f.seq), trail.map((_f, i) => i + 1), 'the stream on B: dense seqs from 1, no gap, no duplicate');
  const times = (type: string) => trail.filter((f) => f.type === type).length;
  t.same([times('turn.started'), times('tool_call.finished'), times('turn.suspended')], [1, 1, 1], 'resumed from its last committed step: one start, one finished read, one suspension');
  const view = (await api(e, 'GET', `/agents/sessions/${taken.sessionId}`)).json;
  t.match(view.latestTurn, { executionId: taken.executionId, status: 'suspended' });
  t.ok(view.pendingApprovalId, 'its approval waits, to be decided on any node');
  onC.close();
});
