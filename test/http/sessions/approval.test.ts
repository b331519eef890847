// Turn approval: suspension with an approvalId, who may decide (rule 5), conflicts, editedArgs, rejection, console route.
import t from 'tap';
import { call } from '../../helpers/http.js';
import { CANARY, crmCredentials, crmResponder, startConversation, type Conversation } from './conversation-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';

async function suspended(c: Conversation, agent = 'upgrader', user = 'ada', extra: Record<string, unknown> = { callerCredentials: crmCredentials() }) {
  const opened = await c.open(agent, user, { message: UPGRADE, ...extra });
  if (opened.status !== 202) throw new Error(`open answered ${opened.status}: ${opened.text}`);
  await c.settle();
  const view = await c.get(`/agents/sessions/${opened.json.sessionId}`, user);
  return { sessionId: opened.json.sessionId as string, executionId: opened.json.executionId as string, view: view.json };
}

const events = async (c: Conversation, sessionId: string) =>
  ((await sqlReader(c.server.service).all('SELECT type, payload FROM session_events WHERE session_id = ? ORDER BY seq', sessionId)) as Array<{ type: string; payload: string }>).map(
    (row) => ({ type: row.type, ...JSON.parse(row.payload) }),
  );

t.test('a tool in approvalTools suspends the turn durably with an approvalId and the tool name', async (t) => {
  const c = await startConversation(t);
  const { sessionId, executionId, view } = await suspended(c);
  t.equal(view.latestTurn.status, 'suspended');
  t.match(view.pendingApproval, { executionId, toolName: 'crm.update_contact', args: { id: 'c-1', tier: 'enterprise' } });
  t.equal(view.pendingApprovalId, view.pendingApproval.approvalId);
  t.same(c.upstream.received.map((r) => r.method), ['GET'], 'the gated write has not been sent');
  const suspension = (await events(c, sessionId)).find((e) => e.type === 'turn.suspended');
  t.match(suspension, { executionId, approvalId: view.pendingApprovalId, toolName: 'crm.update_contact', toolCallId: view.toolCalls[1].toolCallId });
  t.equal(view.toolCalls[1].status, 'awaiting_approval');
  const snapshot = (await sqlReader(c.server.service).get('SELECT status, snapshot FROM actor_snapshots WHERE actor_id = ?', executionId)) as { status: string; snapshot: string };
  t.equal(snapshot.status, 'active');
  t.match(JSON.parse(snapshot.snapshot), { value: 'suspended', context: { pendingApproval: { approvalId: view.pendingApprovalId } } });
});

t.test('approve with editedArgs: 200 at once, the call runs with them, the record shows them, the audit row is marked edited', async (t) => {
  const c = await startConversation(t);
  const { sessionId, view } = await suspended(c);
  let release!: () => void;
  c.upstream.respond((request, res) => {
    if (request.method === 'PATCH') release = () => crmResponder(request, res);
    else crmResponder(request, res);
  });
  const patched = c.upstream.nextRequest();
  const approved = await c.post(`/agents/sessions/${sessionId}/turn-approval`, 'ada', {
    decision: 'approved',
    approvalId: view.pendingApprovalId,
    comment: 'pro is enough',
    editedArgs: { id: 'c-1', tier: 'pro' },
  });
  t.equal(approved.status, 200);
  t.same(approved.json, { ok: true, approvalId: view.pendingApprovalId, decision: 'approved' });
  const request = await patched;
  t.equal(request.method, 'PATCH', 'the resumed call is in flight after the approval answered');
  t.same(JSON.parse(request.body), { tier: 'pro' });
  t.equal(request.headers.authorization, `Bearer ${CANARY}`, 'the caller grant of the parked execution is used');
  release();
  await c.settle();
  const after = await c.get(`/agents/sessions/${sessionId}`, 'ada');
  t.equal(after.json.latestTurn.status, 'completed');
  t.equal(after.json.pendingApproval, null);
  t.match(after.json.toolCalls[1], { toolName: 'crm.update_contact', args: { id: 'c-1', tier: 'pro' }, edited: true, status: 'succeeded', identity: 'caller' });
  const audit = (await sqlReader(c.server.service).get('SELECT * FROM approvals WHERE id = ?', view.pendingApprovalId)) as Record<string, unknown>;
  t.match(audit, { status: 'approved', decided_by: c.refs.ada, comment: 'pro is enough', edited: 1 });
  t.same(JSON.parse(audit.edited_args as string), { id: 'c-1', tier: 'pro' });
  t.same(JSON.parse(audit.args as string), { id: 'c-1', tier: 'enterprise' }, 'the proposal is kept as proposed');
  const started = (await events(c, sessionId)).filter((e) => e.type === 'tool_call.started');
  t.equal(started[1].edited, true);
  const again = await c.post(`/agents/sessions/${sessionId}/turn-approval`, 'ada', { decision: 'approved', approvalId: view.pendingApprovalId });
  t.equal(again.status, 409, 'nothing waits any more');
  t.equal(again.json.error.code, 'APPROVAL_CONFLICT');
});

t.test('reject: the turn ends rejected, the write is never sent', async (t) => {
  const c = await startConversation(t);
  const { sessionId, view } = await suspended(c);
  const rejected = await c.post(`/agents/sessions/${sessionId}/turn-approval`, 'ada', { decision: 'rejected', comment: 'no' });
  t.same(rejected.json, { ok: true, approvalId: view.pendingApprovalId, decision: 'rejected' });
  await c.settle();
  const after = await c.get(`/agents/sessions/${sessionId}`, 'ada');
  t.equal(after.json.latestTurn.status, 'rejected');
  t.equal(after.json.toolCalls[1].status, 'rejected');
  t.same(c.upstream.received.map((r) => r.method), ['GET']);
  t.match((await events(c, sessionId)).slice(-2), [{ type: 'tool_call.finished', status: 'rejected' }, { type: 'turn.completed', outcome: 'rejected' }]);
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants'), 0, 'the grant went with the settled turn');
});

t.test('conflicts and validation: stale or different approvalId 409, editedArgs with rejection 400, bounds 400', async (t) => {
  const c = await startConversation(t);
  const { sessionId, view } = await suspended(c);
  const path = `/agents/sessions/${sessionId}/turn-approval`;
  const stale = await c.post(path, 'ada', { decision: 'approved', approvalId: '0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71' });
  t.equal(stale.status, 409);
  t.equal(stale.json.error.code, 'APPROVAL_CONFLICT');
  const staleReject = await c.post(path, 'ada', { decision: 'rejected', approvalId: '0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71' });
  t.equal(staleReject.status, 409, 'a stale id cannot reject the newer approval either');
  for (const body of [
    { decision: 'rejected', editedArgs: { id: 'c-1' } },
    { decision: 'approved', comment: 'x'.repeat(2_001) },
    { decision: 'maybe' },
    { decision: 'approved', approvalId: 'not-a-uuid' },
    { decision: 'approved', editedArgs: { id: 'c-1', tier: 'gold' } },
    { decision: 'approved', editedArgs: { id: 'c-1', unknown: 1 } },
    { decision: 'approved', surprise: true },
  ]) {
    const answer = await c.post(path, 'ada', body);
    t.equal(answer.status, 400, JSON.stringify(body).slice(0, 70));
    t.equal(answer.json.error.code, 'VALIDATION');
  }
  t.equal((await c.post(path, 'ada', { decision: 'approved', comment: 'y'.repeat(2_000), approvalId: view.pendingApprovalId })).status, 200);
  await c.settle();
});

t.test('who may decide: participation is not approval; the credential owner or a policy approver may', async (t) => {
  const c = await startConversation(t);
  // ada's own credential: user-routed; ada is also the domain's approver.
  const first = await suspended(c);
  const path = `/agents/sessions/${first.sessionId}/turn-approval`;
  for (const [user, status] of [['bob', 403], ['vic', 403], ['eve', 404], ['gina', 404]] as const) {
    const answer = await c.post(path, user, { decision: 'approved' });
    t.equal(answer.status, status, user);
  }
  t.equal((await c.post(path, 'bob', { decision: 'approved' })).json.error.code, 'FORBIDDEN', 'bob participates but may not approve');

  // bob's own credential: bob, the credential owner, may decide though he is no approver; so may ada (approver).
  const bobs = await suspended(c, 'upgrader', 'bob', { callerCredentials: crmCredentials('bob-token') });
  t.equal(bobs.view.pendingApproval.toolName, 'crm.update_contact');
  t.equal((await c.post(`/agents/sessions/${bobs.sessionId}/turn-approval`, 'vic', { decision: 'approved' })).status, 403);
  t.equal((await c.post(`/agents/sessions/${bobs.sessionId}/turn-approval`, 'bob', { decision: 'approved' })).status, 200);
  await c.settle();
  t.equal(c.upstream.received.at(-1)!.headers.authorization, 'Bearer bob-token');

  // A service-identity call is policy-routed: only the approver (ada), not the initiator (bob).
  const policy = await suspended(c, 'notary', 'bob', {});
  t.equal((await c.post(`/agents/sessions/${policy.sessionId}/turn-approval`, 'bob', { decision: 'approved' })).status, 403);
  t.equal((await c.post(`/agents/sessions/${policy.sessionId}/turn-approval`, 'ada', { decision: 'approved' })).status, 200);
  await c.settle();
  t.equal(c.upstream.received.at(-1)!.headers.authorization, 'Bearer org-token-123');
});

t.test('a confirmation in a personal chat is answered only by its initiating person', async (t) => {
  const c = await startConversation(t);
  const { sessions } = c.server.service.services;
  const planned = await sessions.starter.plan({ orgId: c.refs.acme!, automationId: c.refs.notary!, actorUserId: c.refs.bob!, origin: 'mcp', visibility: 'personal', message: UPGRADE });
  await c.server.service.store.writer.submit((tx) => planned.write(tx));
  planned.dispatch();
  await c.settle();
  const path = `/agents/sessions/${planned.sessionId}/turn-approval`;
  t.equal((await c.post(path, 'ada', { decision: 'approved' })).status, 404, 'a personal chat is invisible to the domain Owner and approver');
  const approval = (await sqlReader(c.server.service).get('SELECT kind, initiated_by FROM approvals WHERE session_id = ?', planned.sessionId));
  t.same(approval, { kind: 'confirmation', initiated_by: c.refs.bob });
  t.equal((await c.post(path, 'bob', { decision: 'approved' })).status, 200);
});

t.test('the console route decides with the service_session cookie; without one it is 401', async (t) => {
  const c = await startConversation(t);
  const { sessionId, view } = await suspended(c);
  const url = `${c.server.url}/api/v1/sessions/${sessionId}/turn-approval`;
  const anonymous = await call(url, { method: 'POST', json: { decision: 'approved' } });
  t.equal(anonymous.status, 401);
  const login = await call(`${c.server.url}/api/v1/console/login`, { method: 'POST', json: { email: 'ada@acme.test', password: 'ada-password-1' } });
  t.equal(login.status, 200);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const bobLogin = await call(`${c.server.url}/api/v1/console/login`, { method: 'POST', json: { email: 'bob@acme.test', password: 'bob-password-1' } });
  const bobCookie = bobLogin.headers.get('set-cookie')!.split(';')[0]!;
  t.equal((await call(url, { method: 'POST', headers: { cookie: bobCookie }, json: { decision: 'approved' } })).status, 403);
  const decided = await call(url, { method: 'POST', headers: { cookie }, json: { decision: 'approved', approvalId: view.pendingApprovalId } });
  t.equal(decided.status, 200);
  t.same(decided.json, { ok: true, approvalId: view.pendingApprovalId, decision: 'approved' });
  await c.settle();
  t.equal((await c.get(`/agents/sessions/${sessionId}`, 'ada')).json.latestTurn.status, 'completed');
});

t.test('approval after the grant expired: no replacement -> failed tool result CALLER_CREDENTIAL_EXPIRED; a replacement is used', async (t) => {
  const c = await startConversation(t);
  const { sessions } = c.server.service.services;
  const start = async (expiresInMs: number) => {
    const planned = await sessions.starter.plan({
      orgId: c.refs.acme!,
      automationId: c.refs.upgrader!,
      actorUserId: c.refs.ada!,
      origin: 'trigger',
      visibility: 'domain',
      message: UPGRADE,
      callerCredentials: { integrations: { crm: { token: 'short-lived', fallbackAllowed: true } } },
      callerCredentialExpiresAt: c.clock.now() + expiresInMs,
    });
    await c.server.service.store.writer.submit((tx) => planned.write(tx));
    planned.dispatch();
    await c.settle();
    return planned.sessionId;
  };
  const expiredSession = await start(60_000);
  const replacedSession = await start(60_000);
  t.equal(c.upstream.received.length, 2, 'both read their contact while the grant held');
  c.clock.advance(120_000);
  await c.server.service.services.scheduler.drain();
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants'), 0, 'the expiry timer deleted both grants');

  const approved = await c.post(`/agents/sessions/${expiredSession}/turn-approval`, 'ada', { decision: 'approved' });
  t.equal(approved.status, 200);
  await c.settle();
  const view = (await c.get(`/agents/sessions/${expiredSession}`, 'ada')).json;
  t.match(view.toolCalls[1], { toolName: 'crm.update_contact', status: 'failed', errorCode: 'CALLER_CREDENTIAL_EXPIRED' });
  t.equal(view.latestTurn.status, 'completed', 'the turn resumes with the failed result and finishes');
  t.match((await events(c, expiredSession)).find((e) => e.type === 'caller_credential.failed'), { integrationId: 'crm', code: 'CALLER_CREDENTIAL_EXPIRED' });
  t.equal(c.upstream.received.length, 2, 'no fallback to the organization');

  const replaced = await c.post(`/agents/sessions/${replacedSession}/turn-approval`, 'ada', { decision: 'approved', callerCredentials: crmCredentials('replacement-token') });
  t.equal(replaced.status, 200);
  await c.settle();
  t.equal(c.upstream.received.at(-1)!.headers.authorization, 'Bearer replacement-token');
  t.equal((await c.get(`/agents/sessions/${replacedSession}`, 'ada')).json.toolCalls[1].status, 'succeeded');
});
