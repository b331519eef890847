// Approval window and caller-credential custody (issue 13 item 2): durable timers moved by the injected clock.
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials, startConversation, type Conversation } from './conversation-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';
const HOUR = 3_600_000;

async function suspended(c: Conversation, body: Record<string, unknown> = { callerCredentials: crmCredentials() }) {
  const opened = await c.open('upgrader', 'ada', { message: UPGRADE, ...body });
  await c.settle();
  const view = await c.get(`/agents/sessions/${opened.json.sessionId}`, 'ada');
  if (view.json.latestTurn.status !== 'suspended') throw new Error(`not suspended: ${view.text}`);
  return { sessionId: opened.json.sessionId as string, executionId: opened.json.executionId as string, approvalId: view.json.pendingApprovalId as string };
}

const events = async (c: Conversation, sessionId: string) =>
  ((await sqlReader(c.server.service).all('SELECT type, payload FROM session_events WHERE session_id = ? ORDER BY seq', sessionId)) as Array<{ type: string; payload: string }>).map(
    (row) => ({ type: row.type, ...JSON.parse(row.payload) }),
  );

async function moveClock(c: Conversation, ms: number): Promise<void> {
  c.clock.advance(ms);
  await c.server.service.services.scheduler.drain();
  await c.settle();
}

t.test('an approval undecided for SWITCHYARD_APPROVAL_TTL_MS expires: the turn fails APPROVAL_EXPIRED, the approvalId gets 409, the next turn runs', async (t) => {
  const c = await startConversation(t, { config: { approvalTtlMs: 30 * 60_000 } });
  const { sessionId, executionId, approvalId } = await suspended(c);
  const queued = await c.post(`/agents/sessions/${sessionId}/messages`, 'ada', { message: UPGRADE, callerCredentials: crmCredentials('second-token') });
  await moveClock(c, 30 * 60_000 - 1);
  t.equal((await c.get(`/agents/sessions/${sessionId}`, 'ada')).json.pendingApprovalId, approvalId, 'still waiting one ms before the deadline');

  await moveClock(c, 1);
  const row = (await sqlReader(c.server.service).get('SELECT status, error_code FROM executions WHERE id = ?', executionId));
  t.same(row, { status: 'failed', error_code: 'APPROVAL_EXPIRED' });
  t.match((await events(c, sessionId)).filter((e) => e.executionId === executionId).slice(-2), [
    { type: 'tool_call.finished', toolName: 'crm.update_contact', status: 'failed', errorCode: 'APPROVAL_EXPIRED' },
    { type: 'turn.completed', outcome: 'failed', errorCode: 'APPROVAL_EXPIRED' },
  ]);
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants WHERE execution_id = ?', executionId), 0, 'its grant went with it');
  const late = await c.post(`/agents/sessions/${sessionId}/turn-approval`, 'ada', { decision: 'approved', approvalId });
  t.equal(late.status, 409);
  t.equal(late.json.error.code, 'APPROVAL_CONFLICT');
  t.same(c.upstream.received.map((r) => r.method), ['GET', 'GET'], 'the gated write never ran; the next turn read its contact');
  t.equal(c.upstream.received[1]!.headers.authorization, 'Bearer second-token');
  const view = await c.get(`/agents/sessions/${sessionId}`, 'ada');
  t.match(view.json.pendingApproval, { executionId: queued.json.executionId }, 'the next turn now waits on its own approval');
});

t.test('a decided approval disarms its window: the timer does not fail the resumed turn later', async (t) => {
  const c = await startConversation(t, { config: { approvalTtlMs: 60_000 } });
  const { sessionId, executionId } = await suspended(c);
  t.equal(await c.count(`SELECT count(*) AS n FROM timers WHERE kind = 'approval-expiry' AND target_id = ? AND fired_at IS NULL`, executionId), 1, 'armed at suspension');
  t.equal((await c.post(`/agents/sessions/${sessionId}/turn-approval`, 'ada', { decision: 'approved' })).status, 200);
  await c.settle();
  t.equal(await c.count(`SELECT count(*) AS n FROM timers WHERE kind = 'approval-expiry' AND target_id = ? AND fired_at IS NULL`, executionId), 0, 'disarmed at the decision');
  await moveClock(c, 2 * 60_000);
  t.equal((await c.get(`/agents/sessions/${sessionId}`, 'ada')).json.latestTurn.status, 'completed');
});

t.test('custody is capped at one hour: a turn parked longer resumes CALLER_CREDENTIAL_EXPIRED unless the approval brings credentials', async (t) => {
  const c = await startConversation(t);
  const expired = await suspended(c);
  const replaced = await suspended(c);
  const expiry = (await sqlReader(c.server.service).get('SELECT grant_expires_at AS at, created_at AS created FROM executions WHERE id = ?', expired.executionId)) as { at: number; created: number };
  t.equal(expiry.at, expiry.created + HOUR, 'no declared expiry: custody ends one hour after the grant was stored');
  await moveClock(c, HOUR - 1);
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants'), 2, 'held until the hour is up');
  await moveClock(c, 1);
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants'), 0, 'the custody timer deleted both grants');

  t.equal((await c.post(`/agents/sessions/${expired.sessionId}/turn-approval`, 'ada', { decision: 'approved' })).status, 200);
  t.equal((await c.post(`/agents/sessions/${replaced.sessionId}/turn-approval`, 'ada', { decision: 'approved', callerCredentials: crmCredentials('fresh-token') })).status, 200);
  await c.settle();
  const calls = (await c.get(`/agents/sessions/${expired.sessionId}`, 'ada')).json.toolCalls;
  t.match(calls[1], { toolName: 'crm.update_contact', status: 'failed', errorCode: 'CALLER_CREDENTIAL_EXPIRED' });
  const patches = c.upstream.received.filter((r) => r.method === 'PATCH');
  t.equal(patches.length, 1, 'only the replaced grant\'s write ran');
  t.equal(patches[0]!.headers.authorization, 'Bearer fresh-token');
});

t.test('an earlier declared callerCredentialExpiresAt is kept; a later one is capped at one hour', async (t) => {
  const c = await startConversation(t);
  const { sessions } = c.server.service.services;
  const start = async (expiresInMs: number) => {
    const planned = await sessions.starter.plan({
      orgId: c.refs.acme!, automationId: c.refs.upgrader!, actorUserId: c.refs.ada!, origin: 'trigger', visibility: 'domain', message: UPGRADE,
      callerCredentials: { integrations: { crm: { token: 't', fallbackAllowed: true } } },
      callerCredentialExpiresAt: c.clock.now() + expiresInMs,
    });
    await c.server.service.store.writer.submit((tx) => planned.write(tx));
    planned.dispatch();
    await c.settle();
    return ((await sqlReader(c.server.service).get('SELECT grant_expires_at AS at FROM executions WHERE id = ?', planned.executionId)) as { at: number }).at - c.clock.now();
  };
  t.equal(await start(10 * 60_000), 10 * 60_000);
  t.equal(await start(5 * HOUR), HOUR);
});

t.test('a flow run parked on a run approval expires the same way: failed APPROVAL_EXPIRED, the approval closed', async (t) => {
  const c = await startConversation(t);
  c.upstream.respond((request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(request.method === 'GET' ? { id: 'c-1', tier: 'enterprise' } : { ok: true }));
  });
  const fired = await call(`${c.server.url}/api/v1/triggers/fire`, { method: 'POST', headers: bearer(c.key('ada')), json: { triggerId: c.refs['new-lead'], input: { id: 'c-1' } } });
  const run = (fired.json.sessions as Array<{ automationId: string; sessionId: string }>).find((s) => s.automationId === c.refs.enrich)!;
  // The firing's sessions start after its answer: wait for both reads (the agent's and the flow's) to arrive.
  while (c.upstream.received.length < 2) await c.upstream.nextRequest();
  await c.settle();
  const db = sqlReader(c.server.service);
  const approval = (await db.get('SELECT id, status, execution_id FROM approvals WHERE session_id = ?', run.sessionId)) as { id: string; status: string; execution_id: string };
  t.equal(approval.status, 'pending', 'the run waits on its approval');
  await moveClock(c, 24 * HOUR);
  t.same((await db.get('SELECT status, error_code FROM executions WHERE id = ?', approval.execution_id)), { status: 'failed', error_code: 'APPROVAL_EXPIRED' });
  t.match((await db.get('SELECT status, decided_by FROM approvals WHERE id = ?', approval.id)), { status: 'rejected', decided_by: null });
  t.match((await events(c, run.sessionId)).at(-1), { type: 'turn.completed', outcome: 'failed', errorCode: 'APPROVAL_EXPIRED' });
  const decided = await call(`${c.server.url}/api/v1/agents/sessions/${run.sessionId}/turn-approval`, { method: 'POST', headers: bearer(c.key('ada')), json: { decision: 'approved' } });
  t.equal(decided.status, 409);
});
