// Per-turn budgets (steps, tokens, wall time) end the turn with budget.failed, against a real server and loopback crm.
import t from 'tap';
import { startConversation, type Conversation } from '../../http/sessions/conversation-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

async function storedEvents(c: Conversation, sessionId: string): Promise<Array<{ type: string; [k: string]: unknown }>> {
  const rows = (await sqlReader(c.server.service).all('SELECT type, payload FROM session_events WHERE session_id = ? ORDER BY seq', sessionId)) as Array<{ type: string; payload: string }>;
  return rows.map((row) => ({ type: row.type, ...JSON.parse(row.payload) }));
}

async function turnOf(c: Conversation, sessionId: string) {
  return (await c.get(`/agents/sessions/${sessionId}`, 'ada')).json.latestTurn;
}

t.test('steps: a turn that needs a second model step past the limit fails with budget.failed (steps)', async (t) => {
  const c = await startConversation(t, { config: { turnMaxSteps: 1 } });
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  await c.settle();
  t.same(await turnOf(c, opened.json.sessionId), { executionId: opened.json.executionId, status: 'failed', errorCode: 'BUDGET_EXCEEDED' });
  const events = (await storedEvents(c, opened.json.sessionId));
  t.match(events.slice(-2), [
    { type: 'budget.failed', executionId: opened.json.executionId, budget: 'steps', limit: 1, used: 1 },
    { type: 'turn.completed', outcome: 'failed', errorCode: 'BUDGET_EXCEEDED' },
  ]);
  t.equal(c.upstream.received.length, 1, 'the first step\'s call ran; no further step was taken');
});

t.test('tokens: a step that pushes usage past the limit ends the turn before its calls run', async (t) => {
  const c = await startConversation(t, { config: { turnMaxTokens: 10 } });
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  await c.settle();
  t.equal((await turnOf(c, opened.json.sessionId)).errorCode, 'BUDGET_EXCEEDED');
  const failed = (await storedEvents(c, opened.json.sessionId)).find((e) => e.type === 'budget.failed')!;
  t.match(failed, { budget: 'tokens', limit: 10 });
  t.ok((failed.used as number) > 10);
  t.equal(c.upstream.received.length, 0, 'the over-budget step\'s tool call never reached the upstream');
});

t.test('wall time: moving the clock past the limit aborts the in-flight call and fails the turn (no sleeping)', async (t) => {
  const c = await startConversation(t, { config: { turnMaxWallMs: 60_000 } });
  c.upstream.respond(() => {
    /* never answers: only the wall-time deadline ends this call */
  });
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  await c.upstream.nextRequest();
  c.clock.advance(59_000);
  t.equal((await turnOf(c, opened.json.sessionId)).status, 'running');
  c.clock.advance(2_000);
  await c.settle();
  t.same(await turnOf(c, opened.json.sessionId), { executionId: opened.json.executionId, status: 'failed', errorCode: 'BUDGET_EXCEEDED' });
  const events = (await storedEvents(c, opened.json.sessionId));
  t.match(events.find((e) => e.type === 'tool_call.finished'), { status: 'failed', errorCode: 'TOOL_CANCELLED' });
  t.match(events.find((e) => e.type === 'budget.failed'), { budget: 'wall_time', limit: 60_000, used: 61_000 });
});

t.test('time parked on an approval does not count against the wall-time budget', async (t) => {
  const c = await startConversation(t, { config: { turnMaxWallMs: 60_000 } });
  const opened = await c.open('notary', 'ada', { message: '{"id":"c-1","note":"vip"}' });
  await c.settle();
  t.equal((await turnOf(c, opened.json.sessionId)).status, 'suspended');
  c.clock.advance(3_600_000);
  await c.post(`/agents/sessions/${opened.json.sessionId}/turn-approval`, 'ada', { decision: 'approved' });
  await c.settle();
  t.equal((await turnOf(c, opened.json.sessionId)).status, 'completed');
});
