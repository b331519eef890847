// SIGKILL during a stream of fires: after each restart every answered 202 exists exactly once and keyed retries never duplicate.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { spawnTsNode, stopChild, type Child } from '../../bench/children.js';
import { openStore } from '../../storage/store.js';

// Seven boots of a child that loads the whole service through tsx: more than the default per-file timeout.
t.setTimeout(300_000);

const KILLS = 6;
const WORKERS = 16;

interface Booted {
  child: Child;
  port: number;
  refs: Record<string, string>;
}

interface Sent {
  key: string | null;
  body: string;
  /** Set once a 202 came back. */
  answer?: { runId: string; sessions: Array<{ automationId: string; sessionId: string }> };
}

async function boot(dbPath: string, apply: boolean): Promise<Booted> {
  const child = spawnTsNode('test/e2e/fire-crash.child.ts', apply ? [dbPath, '--apply'] : [dbPath], null);
  const lines = createInterface({ input: child.process.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    void child.exited.then((code) => reject(new Error(`child exited (${code}) before ready: ${child.stderrTail()}`)));
  });
  const ready = JSON.parse(line) as { port: number; refs: Record<string, string> };
  return { child, port: ready.port, refs: ready.refs };
}

function post(agent: Agent, port: number, apiKey: string, sent: Sent): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    if (sent.key !== null) headers['idempotency-key'] = sent.key;
    const req = request({ agent, host: '127.0.0.1', port, path: '/api/v1/triggers/fire', method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(sent.body);
  });
}

t.test(`${KILLS} SIGKILLs at random points of a fire stream lose no answered 202 and duplicate no keyed fire`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-fire-crash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'crash.db');
  let current = await boot(dbPath, true);
  t.teardown(() => stopChild(current.child));
  const { refs } = current;
  const apiKey = refs['bob-key']!;
  const all: Sent[] = [];
  let serial = 0;

  for (let round = 0; round < KILLS; round++) {
    const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
    let answered = 0;
    // Kill after a random number of answers, so the kill lands mid-stream with requests in flight.
    const killAfter = 20 + Math.floor(Math.random() * 120);
    let killed = false;
    const { port, child } = current;
    const worker = async (w: number): Promise<void> => {
      while (!killed) {
        const n = serial++;
        // Mostly keyed, some unkeyed; each keyed fire has its own key and body (input names it).
        const key = n % 4 === 3 ? null : `crash-${n}`;
        const sent: Sent = { key, body: JSON.stringify({ triggerId: n % 2 ? refs.quiet : refs.empty, input: { n, w } }) };
        all.push(sent);
        try {
          const res = await post(agent, port, apiKey, sent);
          if (res.status !== 202) throw new Error(`unexpected ${res.status}: ${res.body}`);
          sent.answer = JSON.parse(res.body);
          if (++answered >= killAfter && !killed) {
            killed = true;
            process.kill(child.pid, 'SIGKILL');
          }
        } catch (error) {
          if (!killed) throw error;
          return; // the connection died with the process: this request may or may not have committed
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    await child.exited;
    agent.destroy();
    current = await boot(dbPath, false);

    // Keyed retries after the restart: an unanswered one runs (or replays, if it had committed); an answered one replays.
    const retryAgent = new Agent({ keepAlive: true, maxSockets: WORKERS });
    const retries = all.filter((s) => s.key !== null && (s.answer === undefined || Math.random() < 0.1));
    const results = await Promise.all(retries.map((sent) => post(retryAgent, current.port, apiKey, sent)));
    retryAgent.destroy();
    const wrong: string[] = [];
    retries.forEach((sent, i) => {
      const res = results[i]!;
      if (res.status !== 202) return void wrong.push(`${sent.key}: ${res.status} ${res.body}`);
      const body = JSON.parse(res.body);
      if (sent.answer !== undefined && (res.headers['idempotency-replayed'] !== 'true' || JSON.stringify(body) !== JSON.stringify(sent.answer))) {
        wrong.push(`${sent.key}: answered ${JSON.stringify(sent.answer)}, retry got ${res.body}`);
      }
      sent.answer = body;
    });
    t.same(wrong, [], `kill ${round + 1}: ${retries.length} keyed retries are 202, answered ones replay their original`);
  }
  await stopChild(current.child);

  const store = openStore({ path: dbPath });
  t.teardown(() => store.close());
  t.equal(store.integrityCheck(), 'ok', 'PRAGMA integrity_check');
  const runOf = store.db.prepare('SELECT COUNT(*) FROM trigger_runs WHERE id = ?').pluck();
  const runsOfKey = store.db.prepare('SELECT COUNT(*) FROM trigger_runs WHERE idempotency_key = ?').pluck();
  const sessionsOf = store.db.prepare('SELECT COUNT(*) FROM sessions WHERE trigger_run_id = ?').pluck();
  const answered = all.filter((s) => s.answer !== undefined);
  const lost = answered.filter((s) => runOf.get(s.answer!.runId) !== 1);
  t.same(lost.map((s) => s.answer!.runId), [], `every one of ${answered.length} answered 202s exists exactly once`);
  const short = answered.filter((s) => sessionsOf.get(s.answer!.runId) !== s.answer!.sessions.length);
  t.same(short.map((s) => s.answer!.runId), [], 'with the sessions its answer named');
  const keyed = all.filter((s) => s.key !== null);
  const duplicated = keyed.filter((s) => runsOfKey.get(s.key) !== 1);
  t.same(duplicated.map((s) => s.key), [], `each of ${keyed.length} keys fired exactly once`);
  const unanswered = all.filter((s) => s.answer === undefined).length;
  t.ok(unanswered > 0, `${unanswered} unkeyed requests were cut off by the kills (the kills landed mid-stream)`);
});
