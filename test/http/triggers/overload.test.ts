// Bounded work (issue 12): past the execution queue's limit, run entry points answer 429 OVERLOADED with
// Retry-After and start nothing, while health, reads, replays and zero-session fires still answer.
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { startFireServer } from './fire-server.js';

t.test('a queue limit of 0 seconds refuses every fire and message that would queue work; nothing is written', async (t) => {
  const f = await startFireServer(t, { config: { queueLimitSeconds: 0 } });
  const { repos } = f.server.service.store;

  const refused = await f.fire('bob', { triggerId: f.refs.quiet, input: { a: 1 } }, { 'idempotency-key': 'busy-1' });
  t.equal(refused.status, 429);
  t.equal(refused.json.error.code, 'OVERLOADED');
  t.match(refused.headers.get('retry-after'), /^[1-9][0-9]?$/, 'Retry-After in whole seconds, 1..60');
  t.equal((await repos.triggerRuns.countOfTrigger(f.refs.quiet!)), 0, 'no Run history row');
  t.equal((await repos.fireClaims.count()), 0, 'no idempotency claim: the identical retry runs fresh later');

  const open = await call(`${f.server.url}/api/v1/agents/${f.refs.echo}/sessions`, { method: 'POST', headers: bearer(f.key('bob')), json: { message: 'hello' } });
  t.equal(open.status, 429, 'opening a session is a run entry point too');
  t.equal(open.json.error.code, 'OVERLOADED');

  const nobody = await f.fire('bob', { triggerId: f.refs.empty }, { 'idempotency-key': 'nobody' });
  t.equal(nobody.status, 202, 'a fire that starts no session queues nothing and is accepted');
  const replay = await f.fire('bob', { triggerId: f.refs.empty }, { 'idempotency-key': 'nobody' });
  t.equal(replay.status, 202);
  t.equal(replay.headers.get('idempotency-replayed'), 'true', 'replays are answered from the claim under overload');

  t.equal((await call(`${f.server.url}/healthz`)).status, 200, 'health stays up');
  const metrics = await (await fetch(`${f.server.url}/metrics`)).text();
  t.match(metrics, /switchyard_execution_refused_total 2\b/);
  t.match(metrics, /switchyard_execution_queue_limit_seconds 0\b/);
  t.match(metrics, /switchyard_execution_queue_depth 0\b/);
});

t.test('the hard cap: a fire whose sessions do not all fit is refused whole; picked-up work frees the room', async (t) => {
  const f = await startFireServer(t, { config: { queueLimitSeconds: 60, queueMaxExecutions: 1 } });
  const over = await f.fire('bob', { triggerId: f.refs.fan, callerCredentials: { integrations: { crm: { token: 'tok-1' } } } });
  t.equal(over.status, 429, `a fire whose sessions do not all fit starts none of them: ${JSON.stringify(over.json)}`);
  t.equal((await f.server.service.store.repos.triggerRuns.countOfTrigger(f.refs.fan!)), 0);
  await f.settle();
  t.equal(f.server.service.services.admission.stats().queued, 0, 'picked up: the queue is empty again');
  t.equal((await f.fire('bob', { triggerId: f.refs.quiet })).status, 202, 'room again');
  await f.settle();
});
