// POST /agents/sessions/:id/messages: rule 2 (who may append), the queue policy, and per-turn caller credentials.
import t from 'tap';
import { crmCredentials, crmResponder, startConversation, type Conversation } from './conversation-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

async function openLookup(c: Conversation, user = 'ada', extra: Record<string, unknown> = {}): Promise<string> {
  const opened = await c.open('lookup', user, { message: 'id: c-1', ...extra });
  if (opened.status !== 202) throw new Error(`open answered ${opened.status}: ${opened.text}`);
  await c.settle();
  return opened.json.sessionId as string;
}

t.test('a domain Operator appends to a session someone else opened; authors are named, isYou per caller', async (t) => {
  const c = await startConversation(t);
  const sessionId = await openLookup(c, 'ada');
  const appended = await c.post(`/agents/sessions/${sessionId}/messages`, 'bob', { message: ' id: c-2 ' });
  t.equal(appended.status, 200);
  t.match(appended.json, { executionId: /^[0-9a-f-]{36}$/ });
  t.same(Object.keys(appended.json), ['executionId']);
  await c.settle();
  const asAda = await c.get(`/agents/sessions/${sessionId}`, 'ada');
  const users = asAda.json.messages.filter((m: { role: string }) => m.role === 'user');
  t.same(users.map((m: any) => [m.text, m.author]), [
    ['id: c-1', { userId: c.refs.ada, name: 'Ada Owner', isYou: true }],
    ['id: c-2', { userId: c.refs.bob, name: 'Bob Operator', isYou: false }],
  ]);
  const asBob = await c.get(`/agents/sessions/${sessionId}`, 'bob');
  t.same(asBob.json.messages.filter((m: any) => m.role === 'user').map((m: any) => m.author.isYou), [false, true]);
  t.same(c.upstream.received.map((r) => r.pathname), ['/contacts/c-1', '/contacts/c-2']);
});

t.test('a viewer sees the session but may not drive it: 403 SESSION_NOT_DRIVABLE; outsiders get 404', async (t) => {
  const c = await startConversation(t);
  const sessionId = await openLookup(c, 'ada');
  const view = await c.get(`/agents/sessions/${sessionId}`, 'vic');
  t.equal(view.status, 200);
  t.same([view.json.canParticipate, view.json.canManage, view.json.readOnlyReason], [false, false, 'not_a_participant']);
  const refused = await c.post(`/agents/sessions/${sessionId}/messages`, 'vic', { message: 'hi' });
  t.equal(refused.status, 403);
  t.equal(refused.json.error.code, 'SESSION_NOT_DRIVABLE');
  for (const user of ['eve', 'gina']) {
    const answer = await c.post(`/agents/sessions/${sessionId}/messages`, user, { message: 'hi' });
    t.equal(answer.status, 404, `${user}: org Admin status and other organizations see nothing`);
    t.same(answer.json, { error: { code: 'NOT_FOUND', message: 'Not found.' } });
  }
  const invalid = await c.post(`/agents/sessions/${sessionId}/messages`, 'bob', { message: '' });
  t.equal(invalid.status, 400);
});

t.test('a message sent while a turn runs is queued behind it: executions run in order, one at a time', async (t) => {
  const c = await startConversation(t);
  const releases: Array<() => void> = [];
  c.upstream.respond((request, res) => releases.push(() => crmResponder(request, res)));
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  await c.upstream.nextRequest();
  const second = await c.post(`/agents/sessions/${opened.json.sessionId}/messages`, 'ada', { message: 'id: c-2' });
  const third = await c.post(`/agents/sessions/${opened.json.sessionId}/messages`, 'bob', { message: 'id: c-3' });
  t.equal(second.status, 200);
  t.equal(third.status, 200);
  const status = async (id: string) => ((await sqlReader(c.server.service).get('SELECT status FROM executions WHERE id = ?', id)) as { status: string }).status;
  t.same([(await status(opened.json.executionId)), (await status(second.json.executionId)), (await status(third.json.executionId))], ['running', 'queued', 'queued']);
  t.equal(c.upstream.received.length, 1, 'the second turn has not started');
  for (let i = 1; i <= 3; i++) {
    releases.shift()!();
    if (i < 3) await c.upstream.nextRequest();
  }
  await c.settle();
  t.same(c.upstream.received.map((r) => r.pathname), ['/contacts/c-1', '/contacts/c-2', '/contacts/c-3']);
  t.same([(await status(opened.json.executionId)), (await status(second.json.executionId)), (await status(third.json.executionId))], ['completed', 'completed', 'completed']);
  const view = await c.get(`/agents/sessions/${opened.json.sessionId}`, 'ada');
  t.same(view.json.messages.map((m: any) => m.role), ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'], 'answers follow their own message');
});

t.test('caller credentials belong to the turn that supplied them only (rule 2, caller rule 6)', async (t) => {
  const c = await startConversation(t);
  const sessionId = await openLookup(c, 'ada', { callerCredentials: crmCredentials() });
  await c.post(`/agents/sessions/${sessionId}/messages`, 'ada', { message: 'id: c-2' });
  await c.settle();
  t.same(c.upstream.received.map((r) => r.headers.authorization), ['Bearer caller-canary-5f1d9a7c3e', 'Bearer org-token-123']);
  await c.post(`/agents/sessions/${sessionId}/messages`, 'ada', { message: 'id: c-3', callerCredentials: crmCredentials('second-turn-token') });
  await c.settle();
  t.equal(c.upstream.received[2]!.headers.authorization, 'Bearer second-turn-token');
});

t.test('caller_required: each appended turn needs its own credential, else 422 with nothing queued', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('upgrader', 'ada', { message: 'id: c-1', callerCredentials: crmCredentials() });
  t.equal(opened.status, 202);
  const refused = await c.post(`/agents/sessions/${opened.json.sessionId}/messages`, 'ada', { message: 'id: c-2' });
  t.equal(refused.status, 422);
  t.equal(refused.json.error.code, 'CALLER_CREDENTIALS_REQUIRED');
  const count = (await sqlReader(c.server.service).get('SELECT count(*) AS n FROM executions WHERE session_id = ?', opened.json.sessionId)) as { n: number };
  t.equal(count.n, 1);
});

t.test('credentials are narrowed to caller-bound integrations; undeclared fields are removed; never merged with the org', async (t) => {
  const c = await startConversation(t);
  // exporter binds crm at service identity: the caller's crm token must not travel.
  const exported = await c.open('exporter', 'ada', { message: 'id: c-9', callerCredentials: { integrations: { crm: { token: 'not-for-service' }, other: { token: 'x' } } } });
  t.equal(exported.status, 202);
  await c.settle();
  t.equal(c.upstream.received[0]!.headers.authorization, 'Bearer org-token-123');
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants'), 0, 'nothing for a service binding is even stored');

  await c.open('lookup', 'ada', { message: 'id: c-1', callerCredentials: { integrations: { crm: { fields: { api_key: 'caller-field-key', bogus: 'drop-me' } } } } });
  await c.settle();
  const received = c.upstream.received[1]!;
  t.equal(received.headers['x-api-key'], 'caller-field-key');
  t.notOk(received.headers.authorization, 'the organization token is not added to caller material');
  t.notOk(JSON.stringify(received.headers).includes('drop-me'), 'an undeclared field never reaches the integration');
});

t.test('a grant past its declared expiry at call time fails the call CALLER_CREDENTIAL_EXPIRED, with no fallback', async (t) => {
  const c = await startConversation(t);
  const planned = await c.server.service.services.sessions.starter.plan({
    orgId: c.refs.acme!,
    automationId: c.refs.lookup!,
    actorUserId: c.refs.ada!,
    origin: 'trigger',
    visibility: 'domain',
    message: 'id: c-1',
    callerCredentials: { integrations: { crm: { token: 'already-expired', fallbackAllowed: true } } },
    callerCredentialExpiresAt: c.clock.now(),
  });
  await c.server.service.store.writer.submit((tx) => planned.write(tx));
  planned.dispatch();
  await c.settle();
  const view = (await c.get(`/agents/sessions/${planned.sessionId}`, 'ada')).json;
  t.match(view.toolCalls, [{ toolName: 'crm.get_contact', status: 'failed', errorCode: 'CALLER_CREDENTIAL_EXPIRED', identity: null }]);
  t.equal(view.latestTurn.status, 'completed', 'a failed tool result, not a failed turn');
  t.equal(c.upstream.received.length, 0, 'caller_preferred does not fall back to the organization after expiry');
  const failed = (await sqlReader(c.server.service).get("SELECT payload FROM session_events WHERE session_id = ? AND type = 'caller_credential.failed'", planned.sessionId)) as { payload: string };
  t.match(JSON.parse(failed.payload), { integrationId: 'crm', code: 'CALLER_CREDENTIAL_EXPIRED', toolCallId: view.toolCalls[0].toolCallId });
});
