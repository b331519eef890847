// Crash and restart semantics of flow runs: finished steps are read back, in-flight writes are failed, not repeated.
import t from 'tap';
import { flowWorld } from './flow-world.js';

t.test('a run suspended at its approval survives a restart; approving on the new engine runs only the gated step', async (t) => {
  const w = await flowWorld(t, { file: true });
  const { sessionId } = await w.start({ id: 'c-2' });
  t.equal((await w.trail(sessionId)).execution.status, 'suspended');

  await w.restart();
  t.equal(await w.dispatcher.recover(), 0, 'a suspended run is not runnable work');
  const approvalId = (await w.trail(sessionId)).approvals[0]!.id;
  await w.approvals.decide(w.caller('ada'), { runId: sessionId, decision: 'approved', approvalId });
  await w.dispatcher.idle(sessionId);

  const trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'completed');
  t.equal(w.crm.requests('GET').length, 1, 'the completed get step was read back, not re-run');
  t.equal(w.crm.requests('PATCH').length, 1);
  t.same(JSON.parse(trail.messages.at(-1)!.payload!).output.tier, 'enterprise', 'the output came from the stored get result');
});

t.test('a write in flight when the service stops is failed INTERRUPTED on the next boot, never repeated', async (t) => {
  const w = await flowWorld(t, { file: true });
  const { sessionId } = await w.start({ id: 'c-2' });
  w.crm.hold('PATCH');
  const arrived = w.crm.upstream.nextRequest();
  await w.approvals.decide(w.caller('ada'), { runId: sessionId, decision: 'approved' });
  await arrived;
  t.match((await w.trail(sessionId)).calls[1], { callRef: 'tag', status: 'running' }, 'the update reached the upstream and is in flight');

  // The "crash": every engine stops mid-call; nothing about the call's outcome is recorded.
  await w.restart();
  w.crm.release();
  t.equal((await w.store.repos.executions.execution((await w.trail(sessionId)).execution.id))!.status, 'running', 'still running in the database');
  t.equal(await w.dispatcher.recover(), 1);
  await w.dispatcher.idle(sessionId);

  const trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'failed');
  t.equal(trail.execution.errorCode, 'INTERRUPTED');
  t.match(trail.calls[1], { callRef: 'tag', status: 'failed', errorCode: 'INTERRUPTED' });
  t.match(trail.calls[1]!.errorMessage, /not repeated/);
  t.equal(w.crm.requests('PATCH').length, 1, 'the write was not sent again');
  t.equal(w.crm.requests('GET').length, 1, 'the finished get was not sent again');
  const resumed = trail.events.filter((e) => e.type === 'turn.started').at(-1)!;
  t.match(resumed.payload, { resumed: true });
  t.match(trail.events.at(-1), { type: 'turn.completed', payload: { outcome: 'failed', errorCode: 'INTERRUPTED' } });
});

t.test('a readonly call in flight when the service stops is repeated on the next boot', async (t) => {
  const w = await flowWorld(t, { file: true });
  w.crm.hold('GET');
  const arrived = w.crm.upstream.nextRequest();
  const { sessionId } = await w.start({ id: 'c-1' }, {}, false);
  await arrived;
  await w.restart();
  w.crm.release();
  await w.dispatcher.recover();
  await w.dispatcher.idle(sessionId);

  const trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'completed');
  t.equal(w.crm.requests('GET').length, 2, 'the readonly get ran again');
  t.equal(trail.calls.length, 1, 'on the same call row');
  t.match(trail.calls[0], { callRef: 'get', status: 'succeeded' });
  t.same(JSON.parse(trail.messages.at(-1)!.payload!).output, { id: 'c-1', name: 'Pat Pro', tier: 'pro' });
});

t.test('an approval decided while the service was down is resumed at boot', async (t) => {
  const w = await flowWorld(t, { file: true });
  const { sessionId } = await w.start({ id: 'c-2' });
  // Decided, then the process stops before its dispatch ran: the run is left resume_queued.
  await w.dispatcher.stop();
  await w.approvals.decide(w.caller('ada'), { runId: sessionId, decision: 'approved' });
  t.equal((await w.trail(sessionId)).execution.status, 'resume_queued');
  await w.restart();
  t.equal(await w.dispatcher.recover(), 1);
  await w.dispatcher.idle(sessionId);
  t.equal((await w.trail(sessionId)).execution.status, 'completed');
  t.equal(w.crm.requests('PATCH').length, 1);
});
