// Three service processes on one PostgreSQL (issue 16 "How it is checked"): replay, streams, takeover, duplicate fires, schedules across nodes.
/*
 * Every node is a child running test/e2e/crash.child.ts on the same throwaway database with the same master keys
 * (SWITCHYARD_MASTER_KEYS) and the same loopback crm upstream; everything is checked over HTTP. The schedule is a
 * yearly cron (`0 0 1 1 *`) reached with the children's injectable clock: nodes booted later run 40 days ahead, so
 * the tick armed at apply time is overdue for them, and not for the nodes still on today's clock.
 */
import { Agent } from 'node:http';
import t from 'tap';
import type { LiveChild } from '../helpers/crash-harness.js';
import { usePostgres } from '../helpers/postgres.js';
import { useServiceChildren } from '../helpers/service-children.js';
import { followSession } from '../helpers/session-stream.js';
import { crmCredentials } from '../http/sessions/conversation-fixture.js';

t.setTimeout(120_000);
const pg = await usePostgres(t);
const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';
const DAY = 86_400_000;

/** The conversation workspace plus a yearly schedule trigger whose subscriber needs no caller. */
function workspace(manifest: any): any {
  const acme = manifest.organizations[0];
  acme.triggers = [...(acme.triggers ?? []), { ref: 'new-year', type: 'schedule', domain: 'sales', name: 'New year', cron: '0 0 1 1 *', input: { id: 'c-7' }, subscribers: ['exporter'] }];
  return manifest;
}

t.test('three nodes on one PostgreSQL: replay, a stream across nodes, takeover after SIGKILL, 1,000 duplicate fires, a schedule fired once', { skip: pg.skip }, async (t) => {
  const databaseUrl = await pg.database(t);
  const children = await useServiceChildren(t, { sharedMasterKeys: true, agent: new Agent({ keepAlive: true, maxSockets: 32 }) });
  const { upstream, api } = children;
  const boot = (clockOffsetMs: number, manifest?: unknown, last = false): Promise<LiveChild> =>
    children.boot(() => ({ dbPath: 'unused.db', databaseUrl, clockOffsetMs, ...(manifest === undefined ? {} : { manifest }) }), { last });
  const a = await boot(0, workspace(children.workspace()));
  const refs = a.refs;
  const [b, c] = [await boot(0), await boot(0)];
  const patches = () => upstream.received.filter((r) => r.method === 'PATCH').length;
  const runsOf = async (node: LiveChild, triggerId: string) => ((await api(node, 'GET', `/triggers/${triggerId}/runs?limit=100`)).json.runs as unknown[]).length;

  // 1. A keyed fire on A is replayed by its key on B, byte for byte.
  const fire = { triggerId: refs['new-lead'], input: { email: 'lead@example.com' } };
  const first = await api(a, 'POST', '/triggers/fire', fire, { 'idempotency-key': 'nodes-1' });
  t.equal(first.status, 202, first.text);
  const replay = await api(b, 'POST', '/triggers/fire', fire, { 'idempotency-key': 'nodes-1' });
  t.equal(replay.status, 202, replay.text);
  t.equal(replay.text, first.text, 'B replays the 202 A answered');
  t.equal(replay.headers['idempotency-replayed'], 'true');

  // 2. A session opened on A runs its turn there; a stream on B follows it to the approval with dense seqs.
  const opened = await api(a, 'POST', `/agents/${refs.upgrader}/sessions`, { message: UPGRADE, callerCredentials: crmCredentials() });
  t.equal(opened.status, 202, opened.text);
  const sessionId = opened.json.sessionId as string;
  const stream = followSession(b.port, sessionId, refs['ada-key']!, 0);
  t.teardown(() => stream.close());
  await stream.until((f) => f.some((frame) => frame.type === 'turn.suspended'));
  await a.idle();
  const parked = (await api(b, 'GET', `/agents/sessions/${sessionId}`)).json;
  t.equal(parked.latestTurn.status, 'suspended');
  t.ok(parked.pendingApprovalId, 'an approval waits');
  t.equal(patches(), 0, 'the gated write has not run');

  // 3. SIGKILL A, which ran the turn; approved on C, the gated call runs once and B's stream sees the rest.
  await a.kill();
  const approved = await api(c, 'POST', `/agents/sessions/${sessionId}/turn-approval`, { decision: 'approved', approvalId: parked.pendingApprovalId });
  t.equal(approved.status, 200, approved.text);
  await stream.until((f) => f.some((frame) => frame.type === 'turn.completed'));
  await Promise.all([b.idle(), c.idle()]);
  t.equal(patches(), 1, 'the approved write ran exactly once');
  const events = stream.frames.filter((f) => f.type !== 'snapshot');
  t.same(events.map((f) => f.seq), events.map((_f, i) => i + 1), 'B streamed every event from seq 1: no gap, no duplicate');
  t.match((await api(b, 'GET', `/agents/sessions/${sessionId}`)).json.latestTurn, { status: 'completed' });
  stream.close();

  // 4. 1,000 fires with one key spread over B and C start one firing; every 202 is the same answer.
  const runsBefore = await runsOf(b, refs['new-lead']!);
  const answers = await Promise.all(
    Array.from({ length: 1_000 }, (_v, i) => api(i % 2 === 0 ? b : c, 'POST', '/triggers/fire', fire, { 'idempotency-key': 'nodes-dup' })),
  );
  const accepted = answers.filter((r) => r.status === 202);
  const refused = answers.filter((r) => r.status !== 202);
  t.ok(accepted.length > 0, `${accepted.length} fires answered 202`);
  t.same(new Set(accepted.map((r) => r.text)).size, 1, 'every 202 carries the same sessions');
  // A duplicate that meets the original still uncommitted (on any node) is told to retry; never a 500.
  t.same([...new Set(refused.map((r) => `${r.status} ${r.json?.error?.code}`))], refused.length === 0 ? [] : ['409 IDEMPOTENCY_IN_PROGRESS'], `the ${refused.length} others are 409 IDEMPOTENCY_IN_PROGRESS`);
  await Promise.all([b.idle(), c.idle()]);
  t.equal(await runsOf(c, refs['new-lead']!), runsBefore + 1, 'one firing for the key');

  // Each node's first request for a key is the one that reaches the database (later ones wait in memory): 30 keys
  // sent to B and C at once race 30 times across nodes, the loser meeting the winner on the unique claim index.
  const keys = Array.from({ length: 30 }, (_v, i) => `nodes-race-${i}`);
  const pairs = await Promise.all(keys.map((key) => Promise.all([b, c].map((node) => api(node, 'POST', '/triggers/fire', fire, { 'idempotency-key': key })))));
  const raceStatuses = pairs.flat().map((r) => `${r.status} ${r.json?.error?.code ?? ''}`.trim());
  t.same([...new Set(raceStatuses.filter((s) => s !== '202'))].filter((s) => s !== '409 IDEMPOTENCY_IN_PROGRESS'), [], 'a race across nodes is answered 202 or 409, never 500');
  t.ok(pairs.every(([x, y]) => x!.status !== 202 || y!.status !== 202 || x!.json.runId === y!.json.runId), 'both nodes answering 202 for a key answer the same firing');
  await Promise.all([b.idle(), c.idle()]);
  t.equal(await runsOf(c, refs['new-lead']!), runsBefore + 1 + keys.length, 'one firing per raced key');

  // 5. The new-year tick falls due while A is down and B is stopped: two nodes 40 days ahead race for it, one fires.
  t.equal(await runsOf(b, refs['new-year']!), 0, 'not due on today\'s clock');
  await b.stop();
  const ahead = 40 * DAY;
  const [d, e] = await Promise.all([boot(ahead), boot(ahead, undefined, true)]);
  await Promise.all([c.idle(), d.idle(), e.idle()]);
  t.equal(await runsOf(d, refs['new-year']!), 1, 'the overdue schedule fired once across the nodes');
  await Promise.all([d.idle(), e.idle()]);
  t.equal(await runsOf(e, refs['new-year']!), 1, 'and not again');
});
