// GET /agents/sessions/:id: rule 3 visibility (personal vs domain, no Owner/Admin bypass), flags, files download.
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { startConversation, type Conversation } from './conversation-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

async function personalChat(c: Conversation, user: 'bob' | 'ada'): Promise<string> {
  const planned = await c.server.service.services.sessions.starter.plan({
    orgId: c.refs.acme!,
    automationId: c.refs.lookup!,
    actorUserId: c.refs[user]!,
    origin: 'mcp',
    visibility: 'personal',
    message: 'id: c-1',
  });
  await c.server.service.store.writer.submit((tx) => planned.write(tx));
  planned.dispatch();
  await c.settle();
  return planned.sessionId;
}

t.test('a personal chat is visible to its creator only: no domain Owner, org Owner or Admin bypass', async (t) => {
  const c = await startConversation(t);
  const sessionId = await personalChat(c, 'bob');
  const mine = await c.get(`/agents/sessions/${sessionId}`, 'bob');
  t.equal(mine.status, 200);
  t.equal(mine.json.visibility, 'personal');
  t.same([mine.json.canParticipate, mine.json.canManage, mine.json.readOnlyReason], [true, true, null]);
  const unknown = await c.get('/agents/sessions/0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71', 'ada');
  for (const user of ['ada', 'eve', 'vic', 'gina']) {
    const answer = await c.get(`/agents/sessions/${sessionId}`, user);
    t.equal(answer.status, 404, user);
    t.equal(answer.text, unknown.text, 'the same bytes as an unknown id');
  }
  t.equal((await c.post(`/agents/sessions/${sessionId}/messages`, 'bob', { message: 'id: c-2' })).status, 200, 'the creator drives it');
  await c.settle();
});

t.test('a domain session is visible to current domain members only, with flags for the caller', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'bob', { message: 'id: c-1' });
  await c.settle();
  const path = `/agents/sessions/${opened.json.sessionId}`;
  const flags = async (user: string) => {
    const body = (await c.get(path, user)).json;
    return [body.canParticipate, body.canManage, body.readOnlyReason];
  };
  t.same(await flags('bob'), [true, true, null], 'creator');
  t.same(await flags('ada'), [true, true, null], 'domain Owner');
  t.same(await flags('vic'), [false, false, 'not_a_participant'], 'viewer');
  t.equal((await c.get(path, 'eve')).status, 404, 'org Admin outside the domain');
  t.equal((await call(`${c.server.url}/api/v1${path}`, { headers: bearer('sv_garbage') })).status, 404);

  // Membership is read live: removed from the domain, the creator no longer sees the session.
  (await c.server.service.store.repos.tenancy.removeDomainMember(c.refs.sales!, c.refs.bob!));
  t.equal((await c.get(path, 'bob')).status, 404);
});

t.test('lifecycle: a closed session or an unpublished agent is read-only with the reason; appends are refused', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  await c.settle();
  const path = `/agents/sessions/${opened.json.sessionId}`;
  const db = sqlReader(c.server.service);
  (await db.run("UPDATE sessions SET status = 'archived' WHERE id = ?", opened.json.sessionId));
  t.match((await c.get(path, 'ada')).json, { canParticipate: false, readOnlyReason: 'session_archived', canManage: true });
  const refused = await c.post(`${path}/messages`, 'ada', { message: 'hi' });
  t.same([refused.status, refused.json.error.code, refused.json.error.details], [403, 'SESSION_NOT_DRIVABLE', { readOnlyReason: 'session_archived' }]);
  (await db.run("UPDATE sessions SET status = 'active' WHERE id = ?", opened.json.sessionId));
  (await db.run('UPDATE automations SET published_revision = NULL WHERE id = ?', c.refs.lookup));
  t.match((await c.get(path, 'ada')).json, { canParticipate: false, readOnlyReason: 'agent_unpublished' });
  t.equal((await c.open('lookup', 'ada', { message: 'hi' })).status, 404, 'an unpublished agent cannot be opened');
});

t.test('a file a tool returned is announced and downloadable by anyone who can view the session', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('exporter', 'ada', { message: 'id: c-5' });
  await c.settle();
  const view = (await c.get(`/agents/sessions/${opened.json.sessionId}`, 'vic')).json;
  t.equal(view.files.length, 1);
  t.match(view.files[0], { name: 'c-5.pdf', mediaType: 'application/pdf', sizeBytes: 13 });
  const added = (await sqlReader(c.server.service).get("SELECT payload FROM session_events WHERE session_id = ? AND type = 'file.added'", opened.json.sessionId)) as { payload: string };
  t.match(JSON.parse(added.payload), { fileId: view.files[0].fileId, name: 'c-5.pdf', sizeBytes: 13 });
  const url = `${c.server.url}/api/v1/agents/sessions/${opened.json.sessionId}/files/${view.files[0].fileId}`;
  const download = await fetch(url, { headers: bearer(c.key('vic')) });
  t.equal(download.status, 200);
  t.equal(download.headers.get('content-type'), 'application/pdf');
  t.match(download.headers.get('content-disposition'), /attachment; filename="c-5\.pdf"/);
  t.equal(Buffer.from(await download.arrayBuffer()).toString(), '%PDF-1.4 card');
  t.equal((await fetch(url, { headers: bearer(c.key('eve')) })).status, 404);
  t.equal((await fetch(`${c.server.url}/api/v1/agents/sessions/${opened.json.sessionId}/files/0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71`, { headers: bearer(c.key('ada')) })).status, 404);
});
