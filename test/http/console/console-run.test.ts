// POST /console/agents/:id/run: the console's Run and Test run buttons (cookie only; SPEC caller credentials rule 9).
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials, startConversation } from '../sessions/conversation-fixture.js';
import { signIn } from '../triggers-admin/trigger-fixture.js';

async function fixture(t: Parameters<typeof startConversation>[0]) {
  const c = await startConversation(t);
  const run = async (agentRef: string, who: { user?: string; key?: string }, json: unknown) => {
    const headers: Record<string, string> = {};
    if (who.user) headers.cookie = await signIn(c.server.url, who.user);
    if (who.key) Object.assign(headers, bearer(who.key));
    const id = c.refs[agentRef] ?? agentRef;
    return call(`${c.server.url}/api/v1/console/agents/${id}/run`, { method: 'POST', headers, json });
  };
  return { c, run, sessions: () => c.count('SELECT count(*) AS n FROM sessions') };
}

t.test('Run opens a domain session on the published revision, recorded as from the console, and its turn runs', async (t) => {
  const { c, run } = await fixture(t);
  const opened = await run('lookup', { user: 'ada' }, { message: ' id: c-1 ' });
  t.equal(opened.status, 202, opened.text);
  t.match(opened.json, { sessionId: /^[0-9a-f-]{36}$/, executionId: /^[0-9a-f-]{36}$/ });
  await c.settle();
  const read = await c.get(`/agents/sessions/${opened.json.sessionId}`, 'bob');
  t.equal(read.status, 200, 'a domain session: the domain\'s operator sees it');
  t.match(read.json, { visibility: 'domain', origin: 'console', latestTurn: { status: 'completed' } });
  t.equal(read.json.messages[0].text, 'id: c-1', 'the message is stored trimmed');
  t.match(read.json.toolCalls, [{ toolName: 'crm.get_contact', identity: 'organization' }], 'no caller credential: the organization\'s');
});

t.test('Test run opens a personal session only its opener sees', async (t) => {
  const { c, run } = await fixture(t);
  const opened = await run('lookup', { user: 'ada' }, { message: 'id: c-2', mode: 'test' });
  t.equal(opened.status, 202, opened.text);
  await c.settle();
  t.match((await c.get(`/agents/sessions/${opened.json.sessionId}`, 'ada')).json, { visibility: 'personal', origin: 'console' });
  t.equal((await c.get(`/agents/sessions/${opened.json.sessionId}`, 'bob')).status, 404, 'nobody else sees a test run');
});

t.test('the buttons refuse caller credentials: a 400 naming the rule, nothing written, nothing sent upstream', async (t) => {
  const { c, run, sessions } = await fixture(t);
  const before = (await sessions());
  const refused = await run('lookup', { user: 'ada' }, { message: 'id: c-3', callerCredentials: crmCredentials() });
  t.equal(refused.status, 400);
  t.equal(refused.json.error.code, 'VALIDATION');
  t.match(JSON.stringify(refused.json.error.details), /never carry caller credentials/);
  t.notMatch(refused.text, /caller-canary/, 'the refused material is not echoed');
  t.equal((await sessions()), before);
  t.equal(c.upstream.received.length, 0);
});

t.test('an agent that requires caller credentials cannot be run from the buttons, and the answer says why', async (t) => {
  const { run, sessions } = await fixture(t);
  const before = (await sessions());
  const refused = await run('upgrader', { user: 'ada' }, { message: 'id: c-4' });
  t.equal(refused.status, 422);
  t.equal(refused.json.error.code, 'CALLER_CREDENTIALS_REQUIRED');
  t.match(refused.json.error.message, /never carry caller credentials/);
  t.same(refused.json.error.details, { integrationIds: ['crm'] });
  t.equal((await sessions()), before, 'nothing runs as the organization instead');
});

t.test('cookie only, and the usual refusals: no session 401, a key alone 401, a viewer 403, a flow or an unpublished agent 404', async (t) => {
  const { c, run, sessions } = await fixture(t);
  const before = (await sessions());
  t.equal((await run('lookup', {}, { message: 'hi' })).status, 401);
  const keyOnly = await run('lookup', { key: c.key('ada') }, { message: 'hi' });
  t.equal(keyOnly.status, 401, 'an sv_ key is not the console: integrations open sessions on the key route');
  t.equal((await run('lookup', { user: 'vic' }, { message: 'hi' })).status, 403);
  t.equal((await run('enrich', { user: 'ada' }, { message: 'hi' })).status, 404, 'a flow');
  t.equal((await run('drafty', { user: 'ada' }, { message: 'hi' })).status, 404, 'never published');
  t.equal((await run('globex-agent', { user: 'ada' }, { message: 'hi' })).status, 404, 'another organization\'s');
  const empty = await run('lookup', { user: 'ada' }, { message: '   ' });
  t.equal(empty.status, 400, 'an empty message');
  t.equal((await run('lookup', { user: 'ada' }, { message: 'hi', mode: 'draft' })).status, 400, 'an unknown mode');
  t.equal((await sessions()), before);
});
