// 1,000 concurrent duplicate fires with one Idempotency-Key over 50 connections start exactly one firing (SPEC Trigger firing rule 6).
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import t from 'tap';
import { startFireServer } from './fire-server.js';
import { sqlReader } from '../../helpers/sql.js';

interface Outcome {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

t.test('exactly one firing; every answer is the original 202, its replay, or 409 in progress with Retry-After: 2; no 5xx', async (t) => {
  const f = await startFireServer(t);
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  t.teardown(() => agent.destroy());
  const sockets = new Set<Socket>();
  const payload = JSON.stringify({
    triggerId: f.refs.fan,
    input: { id: 'c-7' },
    callerCredentials: { integrations: { crm: { token: 'dup-token' } } },
  });
  const url = new URL(`${f.server.url}/api/v1/triggers/fire`);
  const one = () =>
    new Promise<Outcome>((resolve, reject) => {
      const req = request(
        { agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${f.key('bob')}`, 'content-type': 'application/json', 'idempotency-key': 'dup-1' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('socket', (socket) => sockets.add(socket));
      req.on('error', reject);
      req.end(payload);
    });
  const outcomes = await Promise.all(Array.from({ length: 1_000 }, one));

  t.ok(sockets.size <= 50 && sockets.size > 1, `spread over ${sockets.size} connections (at most 50)`);
  t.equal(outcomes.filter((o) => o.status >= 500).length, 0, 'no 5xx');
  t.same([...new Set(outcomes.map((o) => o.status))].filter((s) => s !== 202 && s !== 409), [], 'only 202 and 409');
  const conflicts = outcomes.filter((o) => o.status === 409);
  t.ok(conflicts.every((o) => JSON.parse(o.body).error.code === 'IDEMPOTENCY_IN_PROGRESS' && o.headers['retry-after'] === '2'), `${conflicts.length} x 409 IDEMPOTENCY_IN_PROGRESS with Retry-After: 2`);
  const accepted = outcomes.filter((o) => o.status === 202);
  const originals = accepted.filter((o) => o.headers['idempotency-replayed'] === undefined);
  t.equal(originals.length, 1, 'exactly one original answer');
  t.ok(accepted.filter((o) => o !== originals[0]).every((o) => o.headers['idempotency-replayed'] === 'true'), 'every other 202 is a replay');
  t.equal(new Set(accepted.map((o) => o.body)).size, 1, 'every 202 carries the original body');

  const { runId, sessions } = JSON.parse(originals[0]!.body) as { runId: string; sessions: Array<{ sessionId: string }> };
  const db = sqlReader(f.server.service);
  t.equal((await f.server.service.store.repos.triggerRuns.countOfTrigger(f.refs.fan!)), 1, 'exactly one firing');
  t.equal((await db.value('SELECT COUNT(*) FROM sessions WHERE trigger_run_id = ?', runId)), sessions.length, 'its sessions, once');
  t.equal((await db.value('SELECT COUNT(*) FROM sessions')), sessions.length, 'no other session anywhere');
  await f.settle();
});
