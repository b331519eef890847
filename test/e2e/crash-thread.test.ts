// SIGKILL of a service process with execution in a worker thread (issue 12 item 2): no answered 202 is lost, none runs twice.
/*
 * The crash harness's child (test/e2e/crash.child.ts) boots with SWITCHYARD_EXECUTION=thread on a temp file; the
 * parent sends keyed fires (two subscribers) and opened sessions, SIGKILLs the process after a random number of
 * answers, and boots the next child on the same file. After a last clean boot has let recovery finish, every
 * answered 202 is checked over HTTP (the session is there and completed; a keyed fire replays the same body) and
 * in the file (each session's events are seqs 1..n, each execution has one turn.completed / run.completed, nothing
 * is left queued or running).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openDatabase } from '../../storage/database.js';
import { createChildPool, send, type LiveChild } from '../helpers/crash-harness.js';
import { startRecordingUpstream } from '../runtime/tools/recording-upstream.js';
import { crashWorkspace } from './crash-ledger.js';

const KILLS = 5;
t.setTimeout(240_000);

interface Answered {
  readonly sessionIds: string[];
  readonly key?: string;
  readonly body?: string;
  readonly path: string;
  readonly request: unknown;
}

t.test(`${KILLS} SIGKILLs of a thread-mode service lose no answered 202 and run nothing twice`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-crash-thread-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'crash.db');
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond((request, res) => {
    const answer = () => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: request.pathname.split('/').pop(), tier: 'pro' }));
    };
    if (Math.random() < 0.4) setTimeout(answer, Math.floor(Math.random() * 15));
    else answer();
  });
  const pool = createChildPool();
  t.teardown(() => pool.close());
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  t.teardown(() => agent.destroy());

  const boot = (manifest?: unknown, last = false): Promise<LiveChild> =>
    pool.boot(() => ({ dbPath, clockOffsetMs: 0, execution: 'thread', ...(manifest === undefined ? {} : { manifest }) }), { last });
  let child = await boot(crashWorkspace(upstream.baseUrl));
  const refs = child.refs;
  const headers = { authorization: `Bearer ${refs['ada-key']}` };
  const answered: Answered[] = [];
  let sent = 0;

  for (let kill = 0; kill < KILLS; kill++) {
    const killAfter = 10 + Math.floor(Math.random() * 40);
    let answers = 0;
    let killing: Promise<void> | null = null;
    const one = async (i: number): Promise<void> => {
      const n = sent++;
      const fire = n % 2 === 0;
      const key = `thread-crash-${n}`;
      const path = fire ? '/api/v1/triggers/fire' : `/api/v1/agents/${refs.lookup}/sessions`;
      const request = fire ? { triggerId: refs['new-lead'], input: { email: `c${n}@example.com`, id: `c-${n}` } } : { message: `{"id": "c-${n}"}` };
      const reply = await send(agent, child.port, 'POST', path, fire ? { ...headers, 'idempotency-key': key } : headers, request).catch(() => null);
      if (reply === null || killing !== null) return;
      if (reply.status === 202) {
        const sessionIds = fire ? (reply.json.sessions as Array<{ sessionId: string }>).map((s) => s.sessionId) : [reply.json.sessionId as string];
        answered.push({ sessionIds, path, request, ...(fire ? { key, body: reply.text } : {}) });
      }
      answers += 1;
      if (answers >= killAfter && killing === null) killing = child.kill();
      void i;
    };
    // Eight callers at a time until the kill lands.
    await Promise.all(Array.from({ length: 8 }, async (_v, lane) => {
      for (let i = lane; killing === null; i += 8) await one(i);
    }));
    await killing;
    child = await boot(undefined, kill === KILLS - 1);
  }
  await child.idle();

  t.ok(answered.length > KILLS * 5, `${answered.length} answered 202s across ${KILLS} kills`);
  for (const entry of answered) {
    for (const sessionId of entry.sessionIds) {
      const view = await send(agent, child.port, 'GET', `/api/v1/agents/sessions/${sessionId}`, headers);
      if (view.status !== 200 || view.json.latestTurn?.status !== 'completed') t.fail(`session ${sessionId}: ${view.status} ${view.text.slice(0, 200)}`);
    }
    if (entry.key !== undefined) {
      const replay = await send(agent, child.port, 'POST', entry.path, { ...headers, 'idempotency-key': entry.key }, entry.request);
      if (replay.status !== 202 || replay.text !== entry.body) t.fail(`keyed fire ${entry.key} replayed ${replay.status}: ${replay.text.slice(0, 200)}`);
    }
  }
  t.pass('every answered session is there and completed; every keyed fire replays its 202');
  await child.stop();

  const db = openDatabase(dbPath, { readonly: true });
  t.teardown(() => db.close());
  const gaps = db.prepare(`SELECT session_id, COUNT(*) AS n, MIN(seq) AS lo, MAX(seq) AS hi FROM session_events GROUP BY session_id HAVING lo <> 1 OR hi <> n`).all();
  t.same(gaps, [], 'every session stores seqs 1..n, each once');
  const doubled = db.prepare(`SELECT json_extract(payload, '$.executionId') AS execution, COUNT(*) AS n FROM session_events WHERE type IN ('turn.completed', 'run.completed') GROUP BY execution HAVING n > 1`).all();
  t.same(doubled, [], 'no execution completed twice');
  t.equal((db.prepare(`SELECT COUNT(*) AS n FROM executions WHERE status IN ('queued', 'running')`).get() as { n: number }).n, 0, 'nothing left queued or running');
  const answeredIds = answered.flatMap((entry) => entry.sessionIds);
  const present = db.prepare(`SELECT COUNT(*) AS n FROM sessions WHERE id IN (SELECT value FROM json_each(?))`).get(JSON.stringify(answeredIds)) as { n: number };
  t.equal(present.n, answeredIds.length, 'every answered session is stored');
});
