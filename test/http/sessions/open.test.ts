// POST /agents/:automationId/sessions: rule 1 (published agents only, executable by the key owner), bounds, 202 after commit.
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials, startConversation } from './conversation-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

t.test('a published agent runs its turn: 202, then the tool call and the answer are recorded', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'ada', { message: '  {"id": "c-1"}  ' });
  t.equal(opened.status, 202);
  t.match(opened.json, { sessionId: /^[0-9a-f-]{36}$/, executionId: /^[0-9a-f-]{36}$/ });
  await c.settle();

  const read = await c.get(`/agents/sessions/${opened.json.sessionId}`, 'ada');
  t.equal(read.status, 200);
  t.equal(read.json.latestTurn.status, 'completed');
  t.equal(read.json.messages[0].text, '{"id": "c-1"}', 'the message is stored trimmed');
  t.same(read.json.messages[0].author, { userId: c.refs.ada, name: 'Ada Owner', isYou: true });
  t.equal(read.json.messages[1].role, 'assistant');
  t.notOk('author' in read.json.messages[1], 'machine messages have no author');
  t.match(read.json.messages[1].text, /crm\.get_contact/);
  t.match(read.json.toolCalls, [{ toolName: 'crm.get_contact', status: 'succeeded', identity: 'organization', args: { id: 'c-1' }, edited: false }]);

  t.equal(c.upstream.received.length, 1);
  t.equal(c.upstream.received[0]!.pathname, '/contacts/c-1');
  t.equal(c.upstream.received[0]!.headers.authorization, 'Bearer org-token-123', 'caller_preferred with no credential runs as the organization');
});

t.test('a sent caller credential is used as the caller (caller_preferred)', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'bob', { message: 'id: c-7', callerCredentials: crmCredentials() });
  t.equal(opened.status, 202);
  await c.settle();
  t.equal(c.upstream.received[0]!.headers.authorization, 'Bearer caller-canary-5f1d9a7c3e');
  const read = await c.get(`/agents/sessions/${opened.json.sessionId}`, 'bob');
  t.equal(read.json.toolCalls[0].identity, 'caller');
});

t.test('the rows exist when the 202 arrives: session, execution, message, sealed grant, turn snapshot', async (t) => {
  const c = await startConversation(t);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  c.upstream.respond((_request, res) => {
    void held.then(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"tier":"pro"}');
    });
  });
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1', callerCredentials: crmCredentials() });
  t.equal(opened.status, 202);
  const db = sqlReader(c.server.service);
  const { sessionId, executionId } = opened.json;
  t.ok((await db.get('SELECT 1 FROM sessions WHERE id = ?', sessionId)));
  t.ok((await db.get('SELECT 1 FROM executions WHERE id = ?', executionId)));
  t.ok((await db.get("SELECT 1 FROM messages WHERE execution_id = ? AND role = 'user'", executionId)));
  const upstreamCall = c.upstream.received.length > 0 ? c.upstream.received[0] : await c.upstream.nextRequest();
  t.ok(upstreamCall);
  // A queued turn is its execution row (no snapshot row at accept); its first step, START, wrote the snapshot.
  t.match((await db.get("SELECT snapshot FROM actor_snapshots WHERE actor_id = ? AND machine = 'session-turn'", executionId)), { snapshot: /"running"/ });
  const grant = (await db.get('SELECT ciphertext, integration_ids FROM caller_grants WHERE execution_id = ?', executionId)) as { ciphertext: Buffer; integration_ids: string };
  t.ok(grant, 'the grant is held while the turn runs');
  t.equal(grant.integration_ids, '["crm"]');
  t.notOk(grant.ciphertext.toString('latin1').includes('caller-canary'), 'sealed, not in clear');
  release();
  await c.settle();
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants WHERE execution_id = ?', executionId), 0, 'deleted when the execution settled');
});

t.test('rule 1 refusals: flows, unpublished agents, unknown and foreign ids are the uniform 404', async (t) => {
  const c = await startConversation(t);
  const body = { message: 'hello' };
  const unknownKey = await call(`${c.server.url}/api/v1/agents/${c.refs.lookup}/sessions`, { method: 'POST', headers: bearer('sv_notakey'), json: body });
  const answers = [
    unknownKey,
    await call(`${c.server.url}/api/v1/agents/${c.refs.lookup}/sessions`, { method: 'POST', json: body }),
    await c.open('enrich', 'ada', body),
    await c.open('drafty', 'ada', body),
    await c.open('globex-agent', 'ada', body),
    await c.post('/agents/0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71/sessions', 'ada', body),
    await c.post('/agents/not-a-uuid/sessions', 'ada', body),
  ];
  for (const answer of answers) {
    t.equal(answer.status, 404);
    t.equal(answer.text, unknownKey.text, 'byte-identical');
  }
  t.same(unknownKey.json, { error: { code: 'NOT_FOUND', message: 'Not found.' } });
});

t.test('rule 1: the key owner must be an Operator, Editor or Owner of the agent\'s domain (org Admin is not)', async (t) => {
  const c = await startConversation(t);
  for (const user of ['eve', 'vic']) {
    const answer = await c.open('lookup', user, { message: 'hello' });
    t.equal(answer.status, 403, user);
    t.equal(answer.json.error.code, 'FORBIDDEN');
  }
  t.equal((await c.open('lookup', 'bob', { message: 'hello' })).status, 202, 'an Operator may');
});

t.test('caller_required without a credential is refused with nothing written (no run as the organization)', async (t) => {
  const c = await startConversation(t);
  const db = sqlReader(c.server.service);
  const before = (await db.get('SELECT count(*) AS n FROM sessions')) as { n: number };
  const refused = await c.open('upgrader', 'ada', { message: 'id: c-1' });
  t.equal(refused.status, 422);
  t.same(refused.json.error, { code: 'CALLER_CREDENTIALS_REQUIRED', message: refused.json.error.message, details: { integrationIds: ['crm'] } });
  const onlyPolicy = await c.open('upgrader', 'ada', { message: 'id: c-1', callerCredentials: { integrations: { crm: { fallbackAllowed: false } } } });
  t.equal(onlyPolicy.status, 422, 'fallbackAllowed alone is no credential');
  t.same((await db.get('SELECT count(*) AS n FROM sessions')), before);
  t.equal(c.upstream.received.length, 0);
});

t.test('message bounds: trimmed 1-8,000 characters; strict body', async (t) => {
  const c = await startConversation(t);
  const bad = [
    {},
    { message: '' },
    { message: '   \n\t ' },
    { message: 'x'.repeat(8_001) },
    { message: 42 },
    { message: 'hi', extra: true },
    { message: 'hi', callerCredentials: { integrations: { crm: { token: 'a\nb' } } } },
    { message: 'hi', callerCredentials: { integrations: { crm: { fields: {} } } } },
    { message: 'hi', callerCredentials: { crm: { token: 't' } } },
  ];
  for (const json of bad) {
    const answer = await c.open('lookup', 'ada', json);
    t.equal(answer.status, 400, JSON.stringify(json).slice(0, 60));
    t.equal(answer.json.error.code, 'VALIDATION');
    t.notOk(answer.text.includes('a\\nb'), 'submitted secrets are not echoed');
  }
  t.equal((await c.open('lookup', 'ada', { message: ` ${'y'.repeat(8_000)} ` })).status, 202, '8,000 after trimming is accepted');
});
