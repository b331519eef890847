// One durable row per accept (issue 12 item 3): what a keyed fire and an opened session commit before the 202, and
// that every id in the 202 is readable, streamable and recovered after a crash while its rows are still pending.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { SubmitOptions } from '../../../storage/group-commit.js';
import type { Unit as StorageUnit } from '../../../storage/port/unit.js';
import type { Store } from '../../../storage/store.js';
import { bearer, call } from '../../helpers/http.js';
import { onSqlite, type Service } from '../../../http/service.js';
import { sqliteOnly, startTestServer } from '../../helpers/server.js';
import { sqlReader } from '../../helpers/sql.js';
import { startFireServer, type FireServer } from './fire-server.js';

interface Unit {
  rows: number;
  savepoint: boolean;
}

/** Records, per group-commit unit, how many rows it changed (SQLite's total_changes) and whether it had a savepoint. */
function recordUnits(store: Store): Unit[] {
  const units: Unit[] = [];
  const changes = store.db.prepare('SELECT total_changes()').pluck();
  const submit = store.writer.submit.bind(store.writer);
  (store.writer as { submit: typeof submit }).submit = <T>(work: StorageUnit<Store['repos'], T>, options?: SubmitOptions) =>
    submit(async (tx) => {
      const before = changes.get() as number;
      // Units are asynchronous now: counted once this one settled (units of a batch run one after another).
      const value = await work(tx);
      units.push({ rows: (changes.get() as number) - before, savepoint: options?.savepoint !== false });
      return value;
    }, options);
  return units;
}

const pendingRuns = (service: Service) => sqlReader(service).count('SELECT COUNT(*) AS n FROM trigger_runs WHERE pending IS NOT NULL');

async function quietFire(f: FireServer, key: string) {
  const answer = await f.fire('bob', { triggerId: f.refs['new-lead'], input: { id: 'c-1' } }, { 'idempotency-key': key });
  return answer;
}

t.test('a keyed fire with two subscribers commits ONE row, without a savepoint; its sessions follow in one unit', { skip: sqliteOnly('counts the rows each SQLite group-commit unit changed (total_changes())') }, async (t) => {
  const f = await startFireServer(t);
  const { store } = onSqlite(f.server.service);
  // Once per minute and once per service, not per fire: the key's last_used_at, and the claim sweep's one timer.
  await quietFire(f, 'warm-up');
  await f.settle();
  const units = recordUnits(store);

  const answer = await quietFire(f, 'rows-1');
  t.equal(answer.status, 202);
  t.equal(answer.json.sessions.length, 2);
  t.same(units[0], { rows: 1, savepoint: false }, 'the accept: the run row carrying claim, results and session plan');
  await f.settle();
  // 2 sessions + 2 executions + 2 first messages, and the run's pending mark cleared: one unit, after the answer.
  t.same(units.slice(1).find((unit) => !unit.savepoint), { rows: 7, savepoint: false }, 'materialized in one unit');
  t.equal(await pendingRuns(f.server.service), 0, 'nothing left pending');

  const replay = await quietFire(f, 'rows-1');
  t.equal(replay.headers.get('idempotency-replayed'), 'true');
  t.same(replay.json, answer.json, 'the replay answers the identical body from the run row');
  t.equal((await store.repos.fireClaims.get((await f.server.service.services.auth.apiKey(f.key('bob')))!.orgId, 'rows-1'))?.runId, answer.json.runId);
});

t.test('every id in the 202 is readable at once: session, list, stream, Run history', async (t) => {
  const f = await startFireServer(t);
  const materializer = f.server.service.services.sessions.materializer;
  // Holds the materializer's own unit back, so the reads below find the sessions still pending.
  const accepted = materializer.accepted.bind(materializer);
  const held: Array<Parameters<typeof accepted>[0]> = [];
  materializer.accepted = (source) => (held.push(source), Promise.resolve());

  const answer = await quietFire(f, 'read-1');
  t.equal(answer.status, 202);
  t.equal(await pendingRuns(f.server.service), 1, 'the sessions are not written yet');
  for (const source of held) accepted(source);
  const [agent, flow] = answer.json.sessions;
  const base = `${f.server.url}/api/v1`;
  const session = await call(`${base}/agents/sessions/${agent.sessionId}`, { headers: bearer(f.key('bob')) });
  t.equal(session.status, 200, 'GET session answers at once');
  t.equal(await pendingRuns(f.server.service), 0, 'the read waited until the pending sessions were written');
  const list = await call(`${base}/agents/sessions?limit=50`, { headers: bearer(f.key('bob')) });
  const listed = JSON.stringify(list.json);
  t.ok(listed.includes(agent.sessionId) && listed.includes(flow.sessionId), 'both sessions are listed');
  const run = await f.run('bob', 'new-lead', answer.json.runId);
  t.equal(run.status, 200);
  t.same(run.json.subscribers.map((s: { sessionId: string }) => s.sessionId), [agent.sessionId, flow.sessionId], 'Run history shows the run at once');
  const stream = await fetch(`${base}/agents/sessions/${flow.sessionId}/stream`, { headers: bearer(f.key('bob')) });
  t.equal(stream.status, 200, 'the stream opens');
  await stream.body?.cancel();
  await f.settle();
});

t.test('opening a session commits the session row alone; the turn then runs', { skip: sqliteOnly('counts the rows each SQLite group-commit unit changed (total_changes())') }, async (t) => {
  const f = await startFireServer(t);
  const store = onSqlite(f.server.service).store;
  await f.fire('bob', { triggerId: f.refs.empty });
  await f.settle();
  const units = recordUnits(store);
  const opened = await call(`${f.server.url}/api/v1/agents/${f.refs.echo}/sessions`, { method: 'POST', headers: bearer(f.key('bob')), json: { message: 'hello' } });
  t.equal(opened.status, 202);
  t.same(units[0], { rows: 1, savepoint: false }, 'the accept: the session row carrying its first turn');
  await f.settle();
  t.same(units.slice(1).find((unit) => !unit.savepoint), { rows: 3, savepoint: false }, 'execution + message, and the pending mark cleared');
  const view = await call(`${f.server.url}/api/v1/agents/sessions/${opened.json.sessionId}`, { headers: bearer(f.key('bob')) });
  t.equal(view.status, 200);
  t.match(JSON.stringify(view.json), /hello/);
  t.equal((await store.repos.executions.latestExecution(opened.json.sessionId))?.status, 'completed', 'the turn ran');
});

t.test('a crash after the 202 and before the sessions were written: boot writes them before work starts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-inbox-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'inbox.db');
  const first = await startFireServer(t, { dbPath });
  // The process "dies" before its materializer runs: the accepts are durable, their sessions never written.
  first.server.service.services.sessions.materializer.accepted = () => Promise.resolve();
  const fired = await quietFire(first, 'crash-1');
  const opened = await call(`${first.server.url}/api/v1/agents/${first.refs.echo}/sessions`, { method: 'POST', headers: bearer(first.key('bob')), json: { message: 'still there?' } });
  t.equal(opened.status, 202);
  await first.server.close();

  // The same database, nothing applied again: boot alone must write the pending accepts.
  const second = await startTestServer(t, { dbPath });
  t.equal(await pendingRuns(second.service), 0, 'boot wrote every pending accept');
  await second.service.services.sessions.dispatcher.idle();
  const { repos } = second.service.store;
  for (const { sessionId } of fired.json.sessions) {
    t.ok((await repos.executions.latestExecution(sessionId))?.settledAt, `fired session ${sessionId} ran to an end`);
  }
  t.equal((await repos.executions.latestExecution(opened.json.sessionId))?.status, 'completed', 'the opened session ran');
  const replay = await call(`${second.url}/api/v1/triggers/fire`, {
    method: 'POST',
    headers: { ...bearer(first.key('bob')), 'idempotency-key': 'crash-1' },
    json: { triggerId: first.refs['new-lead'], input: { id: 'c-1' } },
  });
  t.same(replay.json, fired.json, 'the key still answers the original');
});

t.test('a source handed over twice (boot recovery, and a post to the execution thread that raced it) is written once', async (t) => {
  const f = await startFireServer(t);
  const { materializer } = f.server.service.services.sessions;
  // The accepts are committed, their sources held back as if posted to a worker that had not read them yet.
  const held: Parameters<typeof materializer.accepted>[0][] = [];
  const accepted = materializer.accepted;
  materializer.accepted = (source) => (held.push(source), Promise.resolve());
  const fired = await quietFire(f, 'twice-1');
  const opened = await call(`${f.server.url}/api/v1/agents/${f.refs.echo}/sessions`, { method: 'POST', headers: bearer(f.key('bob')), json: { message: 'once?' } });
  t.equal(opened.status, 202);
  materializer.accepted = accepted;
  t.same(held.map((source) => source.kind), ['run', 'session']);

  // A successor's boot writes every pending source; then the held posts arrive and must change nothing.
  t.equal(await materializer.recover(), 3, 'recovery wrote the fire\'s two sessions and the opened one');
  await Promise.all(held.map((source) => materializer.accepted(source)));
  await f.settle();
  const sql = sqlReader(f.server.service);
  const ids = [...fired.json.sessions.map((s: { sessionId: string }) => s.sessionId), opened.json.sessionId];
  for (const id of ids) t.equal(await sql.count('SELECT COUNT(*) AS n FROM executions WHERE session_id = ?', id), 1, `one execution for ${id}`);
  t.equal(await sql.count(`SELECT COUNT(*) AS n FROM sessions WHERE id IN (${ids.map(() => '?').join(', ')})`, ...ids), 3);
  t.same(f.server.logs.filter((line) => line.includes('materializing accepted work failed')), [], 'the second hand-over wrote nothing and failed nothing');
});
