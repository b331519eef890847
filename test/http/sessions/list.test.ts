// GET /agents/sessions (visibility, filters, cursor pages) and the paged messages / tool-calls reads (issue 13 item 3).
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { startConversation, type Conversation } from './conversation-fixture.js';
import { send } from './lifecycle-fixture.js';

async function open(c: Conversation, user: string, body: Record<string, unknown> = {}, agent = 'lookup'): Promise<string> {
  const opened = await c.open(agent, user, { message: 'id: c-1', ...body });
  t.equal(opened.status, 202);
  await c.settle(opened.json.sessionId);
  c.clock.advance(1_000);
  return opened.json.sessionId as string;
}

/** Every page of a listing, following nextCursor. */
async function allPages(c: Conversation, user: string, query: string, key: 'sessions' | 'messages' | 'toolCalls', path = '/agents/sessions'): Promise<any[][]> {
  const pages: any[][] = [];
  let cursor: string | null = null;
  do {
    const answer = await c.get(`${path}?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, user);
    if (answer.status !== 200) throw new Error(`${answer.status} ${answer.text}`);
    pages.push(answer.json[key]);
    cursor = answer.json.nextCursor;
  } while (cursor !== null && pages.length < 50);
  return pages;
}

t.test('the list holds domain sessions of the caller\'s domains and their own personal chats, newest first, by cursor', async (t) => {
  const c = await startConversation(t);
  const first = await open(c, 'ada');
  const bobsPersonal = await open(c, 'bob', { visibility: 'personal' });
  const second = await open(c, 'bob');
  const adasPersonal = await open(c, 'ada', { visibility: 'personal' });
  const third = await open(c, 'ada', {}, 'exporter');

  const pages = await allPages(c, 'ada', 'limit=2', 'sessions');
  t.same(pages.map((p) => p.length), [2, 2], 'two full pages, the last without a cursor');
  t.same(pages.flat().map((s) => s.sessionId), [third, adasPersonal, second, first], 'newest first; bob\'s personal chat is not ada\'s to see');
  t.match(pages[0]![1], { visibility: 'personal', origin: 'api', status: 'active', title: null, outcome: null, createdBy: c.refs.ada, archivedAt: null });
  t.same((await allPages(c, 'bob', 'limit=100', 'sessions')).flat().map((s) => s.sessionId), [third, second, bobsPersonal, first]);
  t.same((await allPages(c, 'vic', '', 'sessions')).flat().map((s) => s.sessionId), [third, second, first], 'a Viewer lists domain sessions');
  t.same((await allPages(c, 'eve', '', 'sessions')).flat(), [], 'an org Admin outside the domain sees none');

  // Filters: automation, status, created range (from inclusive, to exclusive).
  t.same((await allPages(c, 'ada', `automationId=${c.refs.lookup}&limit=1`, 'sessions')).flat().map((s) => s.sessionId), [adasPersonal, second, first]);
  t.same((await allPages(c, 'ada', `automationId=${c.refs.exporter}`, 'sessions')).flat().map((s) => s.sessionId), [third]);
  await send(c, 'POST', `/agents/sessions/${second}/archive`, 'ada');
  t.same((await allPages(c, 'ada', 'status=archived', 'sessions')).flat().map((s) => s.sessionId), [second]);
  t.same((await allPages(c, 'ada', 'status=active', 'sessions')).flat().map((s) => s.sessionId), [third, adasPersonal, first]);
  const view = async (id: string) => (await c.get(`/agents/sessions/${id}`, 'ada')).json;
  const from = (await view(second)).createdAt;
  const to = (await view(third)).createdAt;
  t.same((await allPages(c, 'ada', `createdFrom=${from}&createdTo=${to}`, 'sessions')).flat().map((s) => s.sessionId), [adasPersonal, second]);

  // Visibility is reread on every page: removed from the domain, bob keeps only his personal chat.
  (await c.server.service.store.repos.tenancy.removeDomainMember(c.refs.sales!, c.refs.bob!));
  t.same((await allPages(c, 'bob', '', 'sessions')).flat().map((s) => s.sessionId), [bobsPersonal]);
});

t.test('list queries are validated: unknown parameters, bad filters, limit and foreign cursors are 400; a bad key the uniform 404', async (t) => {
  const c = await startConversation(t);
  for (const query of ['foo=1', 'status=deleted', 'automationId=nope', 'createdFrom=yesterday', 'limit=0', 'limit=101', 'cursor=not-ours', `cursor=${Buffer.from('[1,"x"]').toString('base64url')}`]) {
    const answer = await c.get(`/agents/sessions?${query}`, 'ada');
    t.same([answer.status, answer.json.error.code], [400, 'VALIDATION'], query);
  }
  const unknown = await c.get('/agents/sessions/0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71', 'ada');
  const badKey = await call(`${c.server.url}/api/v1/agents/sessions`, { headers: bearer('sv_garbage') });
  t.same([badKey.status, badKey.text], [404, unknown.text]);
});

t.test('a long session pages its messages and tool calls newest first; together they are the session read', async (t) => {
  const c = await startConversation(t);
  const id = await open(c, 'bob');
  for (const n of [2, 3, 4]) {
    t.equal((await c.post(`/agents/sessions/${id}/messages`, n % 2 === 0 ? 'ada' : 'bob', { message: `id: c-${n}` })).status, 200);
    await c.settle(id);
    c.clock.advance(1_000);
  }
  const whole = (await c.get(`/agents/sessions/${id}`, 'bob')).json;
  t.equal(whole.messages.length, 8, 'four questions, four answers');
  t.equal(whole.toolCalls.length, 4);

  const messages = await allPages(c, 'bob', 'limit=3', 'messages', `/agents/sessions/${id}/messages`);
  t.same(messages.map((p) => p.length), [3, 3, 2]);
  t.same(messages.flat().reverse(), whole.messages, 'newest first, the same items as the session read');
  const calls = await allPages(c, 'bob', 'limit=3', 'toolCalls', `/agents/sessions/${id}/tool-calls`);
  t.same(calls.map((p) => p.length), [3, 1]);
  t.same(calls.flat().reverse(), whole.toolCalls);

  t.equal((await c.get(`/agents/sessions/${id}/messages`, 'eve')).status, 404, 'visibility first');
  t.equal((await c.get(`/agents/sessions/${id}/tool-calls?cursor=zzz`, 'bob')).status, 400);
  t.equal((await c.get(`/agents/sessions/${id}/messages?order=asc`, 'bob')).status, 400, 'strict query');
});

t.test('personal chats: opened with visibility personal, invisible to everyone else on every read and write path', async (t) => {
  const c = await startConversation(t);
  const id = await open(c, 'bob', { visibility: 'personal' });
  const path = `/agents/sessions/${id}`;
  t.match((await c.get(path, 'bob')).json, { visibility: 'personal', canParticipate: true, canManage: true });
  const unknown = await c.get('/agents/sessions/0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71', 'ada');
  const attempts: Array<[string, string, unknown]> = [
    ['GET', path, undefined],
    ['GET', `${path}/stream`, undefined],
    ['GET', `${path}/messages`, undefined],
    ['GET', `${path}/tool-calls`, undefined],
    ['POST', `${path}/messages`, { message: 'id: c-2' }],
    ['PATCH', path, { title: 'mine now' }],
    ['POST', `${path}/archive`, undefined],
    ['DELETE', path, undefined],
  ];
  for (const [method, target, body] of attempts) {
    const answer = await send(c, method, target, 'ada', body);
    t.same([answer.status, answer.text], [404, unknown.text], `${method} ${target.slice(path.length) || '/'}: the domain Owner gets the uniform 404`);
  }
  t.equal((await send(c, 'PATCH', path, 'bob', { title: 'mine' })).status, 200, 'the creator manages it');
  t.equal((await c.post(`${path}/messages`, 'bob', { message: 'id: c-2' })).status, 200, 'and drives it');
  await c.settle(id);
  const bad = await c.open('lookup', 'bob', { message: 'hi', visibility: 'secret' });
  t.same([bad.status, bad.json.error.code], [400, 'VALIDATION']);
  const appendVisibility = await c.post(`${path}/messages`, 'bob', { message: 'hi', visibility: 'domain' });
  t.equal(appendVisibility.status, 400, 'visibility is chosen when opening only');
});

t.test('a Flow\'s session is not drivable: canParticipate false, flow_session, and a message is refused, never dropped', async (t) => {
  const c = await startConversation(t);
  const fired = await c.post('/triggers/fire', 'ada', { triggerId: c.refs['new-lead'], input: { id: 'c-1' } });
  t.equal(fired.status, 202);
  const flow = fired.json.sessions.find((s: { automationId: string }) => s.automationId === c.refs.enrich);
  await c.settle();
  const path = `/agents/sessions/${flow.sessionId}`;
  t.match((await c.get(path, 'ada')).json, { canParticipate: false, readOnlyReason: 'flow_session', canManage: true });
  const before = await c.count('SELECT count(*) AS n FROM executions WHERE session_id = ?', flow.sessionId);
  const refused = await c.post(`${path}/messages`, 'ada', { message: 'run it again with id c-2' });
  t.same([refused.status, refused.json.error.code, refused.json.error.details], [403, 'SESSION_NOT_DRIVABLE', { readOnlyReason: 'flow_session' }]);
  t.equal(await c.count('SELECT count(*) AS n FROM executions WHERE session_id = ?', flow.sessionId), before, 'no run was started');
  t.equal((await send(c, 'PATCH', path, 'ada', { outcome: 'resolved' })).status, 200, 'a flow session is still managed');
});

t.test('mine=true lists only the sessions the caller opened, with or without an automation filter, by cursor', async (t) => {
  const c = await startConversation(t);
  const adasFirst = await open(c, 'ada');
  const bobs = await open(c, 'bob');
  const adasPersonal = await open(c, 'ada', { visibility: 'personal' });
  const adasExport = await open(c, 'ada', {}, 'exporter');
  const bobsExport = await open(c, 'bob', {}, 'exporter');

  t.same((await allPages(c, 'ada', 'mine=true&limit=2', 'sessions')).flat().map((s) => s.sessionId), [adasExport, adasPersonal, adasFirst], 'ada opened these, newest first');
  t.same((await allPages(c, 'bob', 'mine=true', 'sessions')).flat().map((s) => s.sessionId), [bobsExport, bobs]);
  t.same((await allPages(c, 'ada', 'mine=false', 'sessions')).flat().map((s) => s.sessionId), [bobsExport, adasExport, adasPersonal, bobs, adasFirst], 'mine=false is every visible session');
  const exporter = (await c.get('/agents/sessions?limit=1', 'ada')).json.sessions[0].automationId as string;
  t.same((await allPages(c, 'ada', `mine=true&automationId=${exporter}`, 'sessions')).flat().map((s) => s.sessionId), [adasExport], 'with an automation: only its sessions ada opened');
  const bad = await c.get('/agents/sessions?mine=yes', 'ada');
  t.same([bad.status, bad.json.error.code], [400, 'VALIDATION']);
});
