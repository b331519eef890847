// The service in its own process on PostgreSQL (issue 16 items 1, 6): fire and replay, a streamed turn, an approved write, SIGKILL and resume.
/*
 * A child process (test/e2e/crash.child.ts) runs createService on a throwaway PostgreSQL database; the crm upstream
 * is a loopback server here. The second test runs `switchyard start` itself with a bad or unreachable URL.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../../bench/children.js';
import { usePostgres } from '../helpers/postgres.js';
import { useServiceChildren } from '../helpers/service-children.js';
import { followSession as follow } from '../helpers/session-stream.js';
import { crmCredentials } from '../http/sessions/conversation-fixture.js';

t.setTimeout(180_000);
const pg = await usePostgres(t);
const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';

t.test('on PostgreSQL: keyed fire replayed byte for byte, a turn streamed in order, an approved write run once, a SIGKILL loses nothing', { skip: pg.skip }, async (t) => {
  const databaseUrl = await pg.database(t);
  const children = await useServiceChildren(t, { sharedMasterKeys: true });
  const { upstream } = children;
  let live = await children.boot(() => ({ dbPath: 'unused.db', databaseUrl, clockOffsetMs: 0, manifest: children.workspace() }));
  const { refs } = children;
  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => children.api(live, method, path, body, headers);

  // A keyed fire: its 202, then the same bytes again for the same key.
  const fire = { triggerId: refs['new-lead'], input: { email: 'lead@example.com' } };
  const first = await api('POST', '/triggers/fire', fire, { 'idempotency-key': 'pg-fire-1' });
  t.equal(first.status, 202, first.text);
  const replay = await api('POST', '/triggers/fire', fire, { 'idempotency-key': 'pg-fire-1' });
  t.equal(replay.status, 202);
  t.equal(replay.text, first.text, 'the replay answers the first 202 byte for byte');

  // A session whose turn parks on an approval; its stream shows the turn's events in seq order.
  const opened = await api('POST', `/agents/${refs.upgrader}/sessions`, { message: UPGRADE, callerCredentials: crmCredentials() });
  t.equal(opened.status, 202, opened.text);
  const sessionId = opened.json.sessionId as string;
  const stream = follow(live.port, sessionId, refs['ada-key']!, 0);
  t.teardown(() => stream.close());
  await stream.until((f) => f.some((frame) => frame.type === 'turn.suspended'));
  await live.idle();
  const parked = (await api('GET', `/agents/sessions/${sessionId}`)).json;
  t.equal(parked.latestTurn.status, 'suspended');
  t.ok(parked.pendingApprovalId, 'an approval waits');
  t.equal(upstream.received.filter((r) => r.method === 'PATCH').length, 0, 'the gated write has not run');

  // SIGKILL, then a new process on the same database: the answered 202s are all there, the approval still waits.
  stream.close();
  await live.kill();
  live = await children.boot(() => ({ dbPath: 'unused.db', databaseUrl, clockOffsetMs: 0 }), { last: true });
  await live.idle();
  const again = await api('POST', '/triggers/fire', fire, { 'idempotency-key': 'pg-fire-1' });
  t.equal(again.text, first.text, 'the fire answered before the crash replays after it');
  for (const { sessionId: started } of first.json.sessions as Array<{ sessionId: string }>) {
    t.equal((await api('GET', `/agents/sessions/${started}`)).status, 200, `fired session ${started} survived`);
  }
  t.equal((await api('GET', `/agents/sessions/${sessionId}`)).json.pendingApprovalId, parked.pendingApprovalId, 'the approval survived');

  // Approved on the new process: the gated call runs once and the turn completes; the stream resumes from seq.
  // Last-Event-ID from the first process's stream: the second resumes right after it.
  const lastSeen = Math.max(...stream.frames.map((f) => f.seq));
  const resumed = follow(live.port, sessionId, refs['ada-key']!, lastSeen);
  t.teardown(() => resumed.close());
  const approved = await api('POST', `/agents/sessions/${sessionId}/turn-approval`, { decision: 'approved', approvalId: parked.pendingApprovalId });
  t.equal(approved.status, 200, approved.text);
  await resumed.until((f) => f.some((frame) => frame.type === 'turn.completed'));
  await live.idle();
  t.equal(upstream.received.filter((r) => r.method === 'PATCH').length, 1, 'the approved write ran exactly once');
  const events = resumed.frames.filter((f) => f.type !== 'snapshot');
  t.same(events.map((f) => f.seq), events.map((_f, i) => events[0]!.seq + i), 'dense seqs, no gap, no duplicate');
  const before = stream.frames.filter((f) => f.type !== 'snapshot');
  t.same(before.map((f) => f.seq), before.map((_f, i) => i + 1), 'the first process streamed its events densely from seq 1');
  t.ok(before.findIndex((f) => f.type === 'turn.started') < before.findIndex((f) => f.type === 'turn.suspended'), 'started, then suspended');
  t.equal(events[0]!.seq, lastSeen + 1, 'the resumed stream continues right after the Last-Event-ID');
  const done = (await api('GET', `/agents/sessions/${sessionId}`)).json;
  t.match(done.latestTurn, { status: 'completed' });
  const listed = (await api('GET', '/agents/sessions')).json.sessions as Array<{ sessionId: string }>;
  t.ok(listed.some((s) => s.sessionId === sessionId), 'the session list shows the session');
  t.same((await api('GET', '/approvals')).json.approvals, [], 'nothing left to approve');
});

/** `switchyard start` with the environment given; its exit code and stderr. */
function start(env: Record<string, string>, args: string[] = []): { status: number | null; stderr: string } {
  const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
  const run = spawnSync(tsx, [join(REPO_ROOT, 'bin', 'switchyard.ts'), 'start', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stderr: run.stderr };
}

t.test('start-up refuses a bad URL and an unreachable server with a clear message that never shows the password', async (t) => {
  const bad = start({ SWITCHYARD_DATABASE_URL: 'mysql://admin:hunter2-secret@db.internal/switchyard' });
  t.equal(bad.status, 2, 'a bad setting is a usage error');
  t.match(bad.stderr, /SWITCHYARD_DATABASE_URL is not a valid PostgreSQL URL: must start with postgres:\/\//);
  t.notMatch(bad.stderr, /hunter2-secret/);

  const both = start({ SWITCHYARD_DATABASE_URL: 'postgres://admin:hunter2-secret@127.0.0.1:9/switchyard' }, ['--db', 'other.db']);
  t.equal(both.status, 2, 'a SQLite file and a PostgreSQL URL at once is a usage error');
  t.match(both.stderr, /--db names a SQLite file, but SWITCHYARD_DATABASE_URL selects PostgreSQL/);
  t.notMatch(both.stderr, /hunter2-secret/);

  // Port 9 on loopback: nothing listens, so the connection is refused at once.
  const down = start({ SWITCHYARD_DATABASE_URL: 'postgres://admin:hunter2-secret@127.0.0.1:9/switchyard' });
  t.not(down.status, 0, 'start-up fails');
  t.match(down.stderr, /PostgreSQL at 127\.0\.0\.1:9\/switchyard is unreachable/);
  t.notMatch(down.stderr, /hunter2-secret/);
});
