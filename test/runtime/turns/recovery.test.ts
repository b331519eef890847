// Boot recovery on a file database: running and queued turns resume; an in-flight write is failed, not repeated.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../../helpers/server.js';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials, crmResponder, startConversation, type Conversation } from '../../http/sessions/conversation-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

function tempDb(t: { teardown(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-recovery-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'db.sqlite');
}

/** Stops the first service mid-turn (its turns are abandoned, exactly as a crash leaves them) and boots a second one. */
async function restart(t: { teardown(fn: () => unknown): void }, c: Conversation, dbPath: string) {
  await c.server.close();
  const server = await startTestServer(t, { dbPath });
  await server.service.services.sessions.dispatcher.idle();
  const api = (path: string, user: string, json?: unknown) =>
    call(`${server.url}/api/v1${path}`, { method: json === undefined ? 'GET' : 'POST', headers: bearer(c.key(user as 'ada')), json });
  return { server, api };
}

t.test('a non-readonly call in flight at the crash is failed with a recorded reason, not repeated; the queue goes on', async (t) => {
  const dbPath = tempDb(t);
  const c = await startConversation(t, { dbPath });
  c.upstream.respond(() => {
    /* the write is "in flight" when the process goes away */
  });
  const opened = await c.open('writer', 'ada', { message: '{"id":"c-1","tier":"pro"}' });
  await c.upstream.nextRequest();
  const queued = await c.post(`/agents/sessions/${opened.json.sessionId}/messages`, 'ada', { message: '{"id":"c-2","tier":"free"}' });
  t.equal(queued.status, 200);
  c.upstream.respond(crmResponder);

  const { server, api } = await restart(t, c, dbPath);
  const view = (await api(`/agents/sessions/${opened.json.sessionId}`, 'ada')).json;
  t.match(view.toolCalls[0], { toolName: 'crm.update_contact', status: 'failed', errorCode: 'INTERRUPTED', args: { id: 'c-1', tier: 'pro' } });
  const reason = (await sqlReader(server.service).get('SELECT error_message FROM tool_calls WHERE id = ?', view.toolCalls[0].toolCallId)) as { error_message: string };
  t.match(reason.error_message, /restarted while this call was in flight/);
  t.match(view.toolCalls[1], { args: { id: 'c-2', tier: 'free' }, status: 'succeeded' }, 'the queued turn ran after it');
  t.same(c.upstream.received.map((r) => `${r.method} ${r.pathname}`), ['PATCH /contacts/c-1', 'PATCH /contacts/c-2'], 'c-1 was not written twice');
  const statuses = (await sqlReader(server.service).all('SELECT status FROM executions WHERE session_id = ? ORDER BY position', opened.json.sessionId));
  t.same(statuses, [{ status: 'completed' }, { status: 'completed' }]);
});

t.test('a readonly call in flight at the crash is simply repeated', async (t) => {
  const dbPath = tempDb(t);
  const c = await startConversation(t, { dbPath });
  c.upstream.respond(() => {});
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1', callerCredentials: crmCredentials() });
  await c.upstream.nextRequest();
  c.upstream.respond(crmResponder);
  const { api } = await restart(t, c, dbPath);
  const view = (await api(`/agents/sessions/${opened.json.sessionId}`, 'ada')).json;
  t.equal(view.latestTurn.status, 'completed');
  t.match(view.toolCalls, [{ toolName: 'crm.get_contact', status: 'succeeded', identity: 'caller' }]);
  t.same(c.upstream.received.map((r) => r.headers.authorization), ['Bearer caller-canary-5f1d9a7c3e', 'Bearer caller-canary-5f1d9a7c3e'], 'the grant survived the restart sealed');
});

t.test('a suspended turn keeps its approvalId across a restart and resumes on approval', async (t) => {
  const dbPath = tempDb(t);
  const c = await startConversation(t, { dbPath });
  const opened = await c.open('upgrader', 'ada', { message: '{"id":"c-1","tier":"pro"}', callerCredentials: crmCredentials() });
  await c.settle();
  const before = (await c.get(`/agents/sessions/${opened.json.sessionId}`, 'ada')).json;
  t.equal(before.latestTurn.status, 'suspended');
  const { server, api } = await restart(t, c, dbPath);
  const after = (await api(`/agents/sessions/${opened.json.sessionId}`, 'ada')).json;
  t.equal(after.pendingApprovalId, before.pendingApprovalId);
  t.equal(after.latestTurn.status, 'suspended', 'boot recovery leaves it parked');
  const approved = await api(`/agents/sessions/${opened.json.sessionId}/turn-approval`, 'ada', { decision: 'approved', approvalId: before.pendingApprovalId });
  t.equal(approved.status, 200);
  await server.service.services.sessions.dispatcher.idle();
  t.equal((await api(`/agents/sessions/${opened.json.sessionId}`, 'ada')).json.latestTurn.status, 'completed');
  t.match(c.upstream.received.at(-1), { method: 'PATCH', headers: { authorization: 'Bearer caller-canary-5f1d9a7c3e' } });
});
