// POST /agents/sessions/:id/cancel (issue 13 item 1): running, queued and suspended turns, permissions, idempotency.
import type { ServerResponse } from 'node:http';
import t from 'tap';
import { EventSource } from 'eventsource';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials, crmResponder, startConversation, type Conversation } from './conversation-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';

/** Holds every GET open (the slow tool call); resolves `closed` when the service drops a held connection unanswered. */
function holdReads(c: Conversation) {
  const held: ServerResponse[] = [];
  let onClose!: () => void;
  const closed = new Promise<void>((resolve) => (onClose = resolve));
  c.upstream.respond((request, res) => {
    if (request.method !== 'GET') return crmResponder(request, res);
    held.push(res);
    res.on('close', () => {
      if (!res.writableEnded) onClose();
    });
  });
  return { held, closed };
}

/** The session's stream through a real EventSource client, collecting turn.completed events. */
function completions(c: Conversation, sessionId: string) {
  const seen: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  const source = new EventSource(`${c.server.url}/api/v1/agents/sessions/${sessionId}/stream`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...bearer(c.key('ada')) } }),
  });
  source.onmessage = (message) => {
    const event = JSON.parse(message.data).event;
    if (event.type !== 'turn.completed') return;
    seen.push(event);
    for (const w of waiters.splice(0)) w();
  };
  return {
    seen,
    close: () => source.close(),
    until: async (n: number) => {
      while (seen.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

const execution = async (c: Conversation, id: string) =>
  (await sqlReader(c.server.service).get('SELECT status, error_code, settled_at FROM executions WHERE id = ?', id)) as { status: string; error_code: string | null; settled_at: number | null };

t.test('cancel a turn blocked in a slow tool call: the call is aborted, the grant deleted, turn.completed cancelled streamed, the next message runs', async (t) => {
  const c = await startConversation(t);
  const { held, closed } = holdReads(c);
  const opened = await c.open('upgrader', 'ada', { message: UPGRADE, callerCredentials: crmCredentials() });
  const { sessionId, executionId } = opened.json;
  const stream = completions(c, sessionId);
  t.teardown(() => stream.close());
  await c.upstream.nextRequest();
  t.equal(held.length, 1, 'the tool call is in flight');
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants WHERE execution_id = ?', executionId), 1, 'the turn holds a caller grant');
  const next = await c.post(`/agents/sessions/${sessionId}/messages`, 'ada', { message: UPGRADE, callerCredentials: crmCredentials('second-token') });
  t.equal(next.status, 200);
  t.equal((await execution(c, next.json.executionId)).status, 'queued', 'the next message waits behind the blocked turn');

  const secondCall = c.upstream.nextRequest();
  const cancelled = await c.post(`/agents/sessions/${sessionId}/cancel`, 'ada', {});
  t.equal(cancelled.status, 200);
  t.same(cancelled.json, { executionId, status: 'cancelled' }, 'the default target is the oldest unsettled execution');
  await closed;
  t.pass('the upstream saw the connection closed before it answered');
  t.match((await execution(c, executionId)), { status: 'failed', error_code: 'CANCELLED' });
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants WHERE execution_id = ?', executionId), 0, 'the grant row is gone');

  const request = await secondCall;
  t.equal(request.headers.authorization, 'Bearer second-token', 'the next message runs, with its own grant');
  await stream.until(1);
  t.match(stream.seen[0], { type: 'turn.completed', executionId, outcome: 'cancelled', errorCode: 'CANCELLED' });
  const view = await c.get(`/agents/sessions/${sessionId}`, 'ada');
  t.match(view.json.toolCalls[0], { toolName: 'crm.get_contact', status: 'failed', errorCode: 'CANCELLED' });
  held[1]!.destroy();
  await c.settle();
});

t.test('cancel a queued turn by executionId: it never runs, the running one goes on', async (t) => {
  const c = await startConversation(t);
  const { held } = holdReads(c);
  const opened = await c.open('upgrader', 'ada', { message: UPGRADE, callerCredentials: crmCredentials() });
  const { sessionId, executionId } = opened.json;
  await c.upstream.nextRequest();
  const queued = await c.post(`/agents/sessions/${sessionId}/messages`, 'ada', { message: UPGRADE, callerCredentials: crmCredentials('second-token') });
  const second = queued.json.executionId as string;
  const answer = await c.post(`/agents/sessions/${sessionId}/cancel`, 'ada', { executionId: second });
  t.same(answer.json, { executionId: second, status: 'cancelled' });
  t.match((await execution(c, second)), { status: 'failed', error_code: 'CANCELLED' });
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants WHERE execution_id = ?', second), 0, 'the queued turn\'s grant is deleted');
  t.equal((await execution(c, executionId)).status, 'running', 'the running turn is untouched');
  c.upstream.respond(crmResponder);
  crmResponder({ method: 'GET', pathname: '/contacts/c-1' } as never, held[0]!);
  await c.settle();
  t.equal((await execution(c, executionId)).status, 'suspended', 'the first turn went on to its approval');
  t.same(c.upstream.received.map((r) => r.method), ['GET'], 'the cancelled turn never called anything');
  const again = await c.post(`/agents/sessions/${sessionId}/cancel`, 'ada', { executionId: second });
  t.equal(again.status, 200, 'repeating the cancel of a cancelled execution answers the same');
  t.same(again.json, answer.json);
});

t.test('cancel a suspended turn: the approval closes (its approvalId then gets 409) and the grant is deleted', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('upgrader', 'ada', { message: UPGRADE, callerCredentials: crmCredentials() });
  const { sessionId, executionId } = opened.json;
  await c.settle();
  const view = await c.get(`/agents/sessions/${sessionId}`, 'ada');
  const approvalId = view.json.pendingApprovalId as string;
  t.equal(view.json.latestTurn.status, 'suspended');
  const answer = await c.post(`/agents/sessions/${sessionId}/cancel`, 'bob', {});
  t.equal(answer.status, 200, 'an operator who may append may cancel');
  await c.settle();
  const decided = await c.post(`/agents/sessions/${sessionId}/turn-approval`, 'ada', { decision: 'approved', approvalId });
  t.equal(decided.status, 409);
  t.equal(decided.json.error.code, 'APPROVAL_CONFLICT');
  const after = await c.get(`/agents/sessions/${sessionId}`, 'ada');
  t.equal(after.json.pendingApproval, null);
  t.match(after.json.toolCalls[1], { toolName: 'crm.update_contact', status: 'failed', errorCode: 'CANCELLED' });
  t.match((await sqlReader(c.server.service).get('SELECT status, decided_by FROM approvals WHERE id = ?', approvalId)), { status: 'rejected', decided_by: null });
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants'), 0);
  t.same(c.upstream.received.map((r) => r.method), ['GET'], 'the gated write was never sent');
  const snapshot = (await sqlReader(c.server.service).get('SELECT snapshot FROM actor_snapshots WHERE actor_id = ?', executionId)) as { snapshot: string };
  t.match(JSON.parse(snapshot.snapshot), { value: 'cancelled' }, 'the turn machine settled in cancelled');
});

t.test('permissions: a viewer is refused 403, other organizations and non-members get the uniform 404', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('upgrader', 'ada', { message: UPGRADE, callerCredentials: crmCredentials() });
  const { sessionId, executionId } = opened.json;
  await c.settle();
  const path = `/agents/sessions/${sessionId}/cancel`;
  const viewer = await c.post(path, 'vic', {});
  t.equal(viewer.status, 403);
  t.equal(viewer.json.error.code, 'SESSION_NOT_DRIVABLE');
  for (const user of ['eve', 'gina', 'sv_not-a-key']) {
    const answer = await c.post(path, user, {});
    t.equal(answer.status, 404, user);
    t.equal(answer.json.error.code, 'NOT_FOUND');
  }
  t.equal((await c.post('/agents/sessions/0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71/cancel', 'ada', {})).status, 404, 'unknown session');
  t.equal((await c.post(path, 'ada', { executionId: '0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71' })).status, 404, 'an execution of no such session');
  for (const body of [{ executionId: 'nope' }, { surprise: 1 }]) t.equal((await c.post(path, 'ada', body)).status, 400, JSON.stringify(body));
  t.equal((await execution(c, executionId)).status, 'suspended', 'nothing refused changed anything');
});

t.test('idempotency: a repeat answers 200 again; a finished execution or an idle session is 409', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  const { sessionId, executionId } = opened.json;
  await c.settle();
  t.equal((await execution(c, executionId)).status, 'completed');
  const finished = await c.post(`/agents/sessions/${sessionId}/cancel`, 'ada', { executionId });
  t.equal(finished.status, 409);
  t.match(finished.json.error, { code: 'CONFLICT', details: { status: 'completed' } });
  const idle = await c.post(`/agents/sessions/${sessionId}/cancel`, 'ada', {});
  t.equal(idle.status, 409, 'nothing to cancel');

  const { held } = holdReads(c);
  const next = await c.post(`/agents/sessions/${sessionId}/messages`, 'ada', { message: 'id: c-2' });
  await c.upstream.nextRequest();
  const first = await c.post(`/agents/sessions/${sessionId}/cancel`, 'ada', { executionId: next.json.executionId });
  const second = await c.post(`/agents/sessions/${sessionId}/cancel`, 'ada', { executionId: next.json.executionId });
  t.same([first.status, second.status], [200, 200]);
  t.same(second.json, first.json);
  await c.settle();
  const completedEvents = await c.count(`SELECT count(*) AS n FROM session_events WHERE session_id = ? AND type = 'turn.completed' AND payload LIKE '%cancelled%'`, sessionId);
  t.equal(completedEvents, 1, 'one turn.completed for one cancel');
  t.equal(held.length, 1);
});

t.test('cancel a flow run blocked in a tool call: same route, the call is aborted, the run settles cancelled; an empty body is allowed', async (t) => {
  const c = await startConversation(t);
  const { held, closed } = holdReads(c);
  const fired = await call(`${c.server.url}/api/v1/triggers/fire`, {
    method: 'POST',
    headers: bearer(c.key('ada')),
    json: { triggerId: c.refs['new-lead'], input: { id: 'c-1' } },
  });
  t.equal(fired.status, 202);
  const flowSession = (fired.json.sessions as Array<{ automationId: string; sessionId: string }>).find((s) => s.automationId === c.refs.enrich)!;
  while (held.length < 2) await c.upstream.nextRequest();
  const answer = await call(`${c.server.url}/api/v1/agents/sessions/${flowSession.sessionId}/cancel`, { method: 'POST', headers: bearer(c.key('ada')) });
  t.equal(answer.status, 200, 'no body: the default target');
  await closed;
  t.equal(held.filter((res) => res.destroyed).length, 1, 'only the flow\'s call was aborted; the agent in the same firing goes on');
  const row = (await sqlReader(c.server.service).get('SELECT status, error_code FROM executions WHERE id = ?', answer.json.executionId));
  t.same(row, { status: 'failed', error_code: 'CANCELLED' });
  const completed = (await sqlReader(c.server.service).all(`SELECT payload FROM session_events WHERE session_id = ? AND type = 'turn.completed'`, flowSession.sessionId)) as Array<{ payload: string }>;
  t.match(completed.map((r) => JSON.parse(r.payload)), [{ outcome: 'cancelled', errorCode: 'CANCELLED' }]);
  for (const res of held) if (!res.destroyed) crmResponder({ method: 'GET', pathname: '/contacts/c-1' } as never, res);
  await c.settle();
});
