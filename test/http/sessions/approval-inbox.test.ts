// GET /api/v1/approvals (who sees what, paging, flow runs) and POST /api/v1/approvals/runs/:runId, with a key or the cookie.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials, crmResponder, startConversation, type Conversation } from './conversation-fixture.js';

const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';

async function suspendedTurn(c: Conversation, agent: string, user: string, extra: Record<string, unknown>): Promise<string> {
  const opened = await c.open(agent, user, { message: UPGRADE, ...extra });
  if (opened.status !== 202) throw new Error(`open answered ${opened.status}: ${opened.text}`);
  await c.settle();
  return opened.json.sessionId as string;
}

const inbox = async (c: Conversation, user: string, query = '') => (await c.get(`/approvals${query}`, user)).json;
const ids = (page: { approvals: Array<{ sessionId: string }> }) => page.approvals.map((a) => a.sessionId);

t.test('the inbox lists exactly what each person may decide, with the proposed args and the tool input schema', async (t) => {
  const c = await startConversation(t);
  const adas = await suspendedTurn(c, 'upgrader', 'ada', { callerCredentials: crmCredentials() });
  const bobs = await suspendedTurn(c, 'upgrader', 'bob', { callerCredentials: crmCredentials('bob-token') });
  const policy = await suspendedTurn(c, 'notary', 'bob', {});

  const ada = await inbox(c, 'ada');
  t.same(ids(ada), [adas, bobs, policy], 'the approver sees every waiting approval of her domain, oldest first');
  t.match(ada.approvals[0], {
    kind: 'turn',
    runId: null,
    automationName: 'Tier upgrader',
    automationKind: 'agent',
    toolName: 'crm.update_contact',
    args: { id: 'c-1', tier: 'enterprise' },
    inputSchema: { type: 'object', properties: { tier: { enum: ['free', 'pro', 'enterprise'] } }, required: ['id'] },
    editable: true,
  });
  t.equal(ada.nextCursor, null);
  t.same(ids(await inbox(c, 'bob')), [bobs], 'bob decides only the call that runs with his own credential, not the policy-routed one');
  t.same(ids(await inbox(c, 'vic')), [], 'a viewer decides nothing');
  t.same(ids(await inbox(c, 'eve')), [], 'an organization Admin outside the domain sees nothing (no bypass)');

  // Deciding removes it from the list.
  t.equal((await c.post(`/agents/sessions/${bobs}/turn-approval`, 'ada', { decision: 'rejected', comment: 'no' })).status, 200);
  t.same(ids(await inbox(c, 'ada')), [adas, policy]);
  t.same(ids(await inbox(c, 'bob')), []);
});

t.test('paging by cursor: each approval once, in order; a bad cursor or limit is a 400', async (t) => {
  const c = await startConversation(t);
  const sessions: string[] = [];
  for (let i = 0; i < 5; i++) {
    sessions.push(await suspendedTurn(c, 'notary', 'ada', {}));
    c.clock.advance(1000);
  }
  const first = await inbox(c, 'ada', '?limit=2');
  t.same(ids(first), sessions.slice(0, 2));
  t.type(first.nextCursor, 'string');
  const second = await inbox(c, 'ada', `?limit=2&cursor=${first.nextCursor}`);
  t.same(ids(second), sessions.slice(2, 4));
  const third = await inbox(c, 'ada', `?limit=2&cursor=${second.nextCursor}`);
  t.same(ids(third), sessions.slice(4));
  t.equal(third.nextCursor, null, 'the last page says so');
  for (const query of ['?cursor=not-ours', '?limit=0', '?limit=101', '?other=1']) {
    const bad = await c.get(`/approvals${query}`, 'ada');
    t.equal(bad.status, 400, query);
    t.equal(bad.json.error.code, 'VALIDATION');
  }
  t.equal((await call(`${c.server.url}/api/v1/approvals`, { headers: bearer('sv_not-a-key') })).status, 404, 'a bad key is the uniform 404');
});

t.test('flow run approvals are listed and decided at /approvals/runs/:runId, with the console cookie too', async (t) => {
  const c = await startConversation(t);
  // The contact is an enterprise one, so the flow reaches its gated vip step.
  c.upstream.respond((request, res) => {
    if (request.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c-7', tier: 'enterprise' }));
    } else crmResponder(request, res);
  });
  const fire = () => c.post('/triggers/fire', 'ada', { triggerId: c.refs['new-lead'], input: { id: 'c-7' } });
  const fired = await fire();
  t.equal(fired.status, 202, fired.text);
  await c.settle();
  let runId: string | undefined;
  for (const s of fired.json.sessions as Array<{ sessionId: string }>) {
    if ((await c.count("SELECT count(*) AS n FROM approvals WHERE session_id = ? AND kind = 'run'", s.sessionId)) === 1) runId = s.sessionId;
  }
  t.ok(runId, 'the enrich flow waits on its vip step');

  const listed = await inbox(c, 'ada');
  const run = listed.approvals.find((a: { kind: string }) => a.kind === 'run');
  t.match(run, { kind: 'run', runId, sessionId: runId, automationName: 'Enrich contact', automationKind: 'flow', toolName: 'crm.update_contact', args: { id: 'c-7', note: 'vip' }, editable: false });
  t.same(ids(await inbox(c, 'bob')), [], 'bob is no approver of the sales domain');

  const login = await call(`${c.server.url}/api/v1/console/login`, { method: 'POST', json: { email: 'ada@acme.test', password: 'ada-password-1' } });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const decide = (headers: Record<string, string>, json: unknown, id = runId) => call(`${c.server.url}/api/v1/approvals/runs/${id}`, { method: 'POST', headers, json });
  t.equal((await decide(bearer(c.key('bob')), { decision: 'approved' })).status, 403, 'visible, not permitted');
  t.equal((await decide(bearer(c.key('ada')), { decision: 'approved', editedArgs: { id: 'c-7' } })).status, 400, 'a run step has no editedArgs');
  t.equal((await decide({ cookie, 'sec-fetch-site': 'cross-site' }, { decision: 'approved' })).status, 403, 'a cross-site decision with the cookie');
  t.equal((await decide(bearer(c.key('ada')), { decision: 'approved', approvalId: newId() })).json.error.code, 'APPROVAL_CONFLICT', 'a different approvalId');
  t.equal((await decide(bearer(c.key('ada')), { decision: 'approved' }, newId())).status, 404, 'an unknown run');

  const patched = c.upstream.nextRequest();
  const approved = await decide({ cookie, 'sec-fetch-site': 'same-origin' }, { decision: 'approved', approvalId: run.approvalId, comment: 'vip indeed' });
  t.equal(approved.status, 200, approved.text);
  t.same(approved.json, { ok: true, approvalId: run.approvalId, decision: 'approved' });
  t.equal((await patched).method, 'PATCH', 'the approved step runs');
  await c.settle();
  const stale = await decide({ cookie }, { decision: 'approved', approvalId: run.approvalId });
  t.equal(stale.status, 409, 'a stale decision');
  t.equal(stale.json.error.code, 'APPROVAL_CONFLICT');
  t.notOk((await inbox(c, 'ada')).approvals.some((a: { kind: string }) => a.kind === 'run'), 'decided: gone from the inbox');
});
