// Session writes with the console cookie, and the cross-origin check on every cookie-authenticated write (docs/decisions.md).
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { crmCredentials, startConversation, type Conversation } from './conversation-fixture.js';

async function signIn(c: Conversation, email: string, password: string): Promise<string> {
  const login = await call(`${c.server.url}/api/v1/console/login`, { method: 'POST', json: { email, password } });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text}`);
  return (login.headers.get('set-cookie') ?? '').split(';')[0]!;
}

const CROSS_SITE: Array<[string, Record<string, string>]> = [
  ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
  ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }],
  ['an Origin of another host', { origin: 'https://evil.example' }],
  ['Origin: null', { origin: 'null' }],
];

t.test('a cross-origin write with the cookie is refused with 403 FORBIDDEN and changes nothing', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'ada', { message: 'first' });
  await c.settle();
  const sessionId = opened.json.sessionId as string;
  const cookie = await signIn(c, 'ada@acme.test', 'ada-password-1');
  const api = `${c.server.url}/api/v1`;
  const messages = async () => await c.count('SELECT count(*) AS n FROM messages WHERE session_id = ?', sessionId);
  const before = (await messages());

  for (const [label, headers] of CROSS_SITE) {
    const sent = await call(`${api}/agents/sessions/${sessionId}/messages`, { method: 'POST', headers: { cookie, ...headers }, json: { message: 'forged' } });
    t.equal(sent.status, 403, `${label}: refused`);
    t.equal(sent.json.error.code, 'FORBIDDEN');
    t.equal(sent.json.error.details.reason, 'cross_origin');
    const renamed = await call(`${api}/agents/sessions/${sessionId}`, { method: 'PATCH', headers: { cookie, ...headers }, json: { title: 'forged' } });
    t.equal(renamed.status, 403, `${label}: rename refused`);
  }
  t.equal((await messages()), before, 'no message was written');
  t.equal((await c.get(`/agents/sessions/${sessionId}`, 'ada')).json.title, null, 'the title did not change');

  // The same check guards every cookie write, not only the session routes.
  const forged = { cookie, 'sec-fetch-site': 'cross-site' };
  t.equal((await call(`${api}/auth/token`, { method: 'POST', headers: forged })).status, 403, 'minting a token cross-site');
  t.equal((await call(`${api}/console/logout`, { method: 'POST', headers: forged })).status, 403, 'signing out cross-site');
  t.equal((await call(`${api}/org/members`, { method: 'POST', headers: forged, json: { email: 'x@acme.test', name: 'X', orgRole: 'member' } })).status, 403, 'a management write');
  t.equal((await call(`${api}/agents/sessions/${sessionId}`, { headers: forged })).status, 200, 'a cross-site GET still reads (no state changes)');
  t.equal((await call(`${api}/me`, { headers: { cookie } })).status, 200, 'the session survived the refused logout');
});

t.test('same-origin cookie writes work: send a message, rename, outcome, archive, unarchive, cancel', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'ada', { message: 'first' });
  await c.settle();
  const sessionId = opened.json.sessionId as string;
  const cookie = await signIn(c, 'ada@acme.test', 'ada-password-1');
  const session = `${c.server.url}/api/v1/agents/sessions/${sessionId}`;
  const host = new URL(c.server.url).host;
  const browser = { cookie, 'sec-fetch-site': 'same-origin' };

  const sent = await call(`${session}/messages`, { method: 'POST', headers: browser, json: { message: 'second, from the console' } });
  t.equal(sent.status, 200, sent.text);
  await c.settle();
  const view = await c.get(`/agents/sessions/${sessionId}`, 'ada');
  t.match(view.json.messages.at(-2), { role: 'user', text: 'second, from the console', author: { userId: c.refs.ada } }, 'the message is the signed-in person\'s');

  const renamed = await call(session, { method: 'PATCH', headers: { cookie, origin: `http://${host}` }, json: { title: 'Renamed', outcome: 'resolved' } });
  t.equal(renamed.status, 200, 'an Origin equal to Host passes (browsers without Sec-Fetch-Site)');
  t.match(renamed.json, { title: 'Renamed', outcome: 'resolved' });
  const archived = await call(`${session}/archive`, { method: 'POST', headers: browser });
  t.equal(archived.status, 200, archived.text);
  t.ok(archived.json.archivedAt);
  t.equal((await call(`${session}/messages`, { method: 'POST', headers: browser, json: { message: 'x' } })).status, 403, 'archived: read-only');
  const unarchived = await call(`${session}/unarchive`, { method: 'POST', headers: { cookie } });
  t.equal(unarchived.status, 200, 'a client sending neither header (not a browser) passes');
  t.equal(unarchived.json.archivedAt, null);

  // A turn that waits on an approval is cancelled from the console.
  const upgrade = await c.open('upgrader', 'ada', { message: '{"id": "c-1", "tier": "enterprise"}', callerCredentials: crmCredentials() });
  await c.settle();
  const cancelled = await call(`${c.server.url}/api/v1/agents/sessions/${upgrade.json.sessionId}/cancel`, { method: 'POST', headers: browser });
  t.equal(cancelled.status, 200, cancelled.text);
  t.same(cancelled.json, { executionId: upgrade.json.executionId, status: 'cancelled' });
});

t.test('the cookie carries the person\'s own rules; a bearer client is unaffected by Origin', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'ada', { message: 'first' });
  await c.settle();
  const sessionId = opened.json.sessionId as string;
  const session = `${c.server.url}/api/v1/agents/sessions/${sessionId}`;
  const vic = await signIn(c, 'vic@acme.test', 'vic-password-1');
  const asViewer = await call(`${session}/messages`, { method: 'POST', headers: { cookie: vic }, json: { message: 'hi' } });
  t.equal(asViewer.status, 403, 'a viewer sees the session but may not drive it');
  t.equal(asViewer.json.error.code, 'SESSION_NOT_DRIVABLE');
  t.equal((await call(session, { method: 'PATCH', headers: { cookie: vic }, json: { title: 'x' } })).json.error.code, 'FORBIDDEN', 'nor manage it');

  const stale = await call(`${session}/messages`, { method: 'POST', headers: { cookie: 'service_session=not-a-session' }, json: { message: 'hi' } });
  t.equal(stale.status, 404, 'a stale cookie is the uniform 404');

  const keyed = await call(`${session}/messages`, { method: 'POST', headers: { ...bearer(c.key('ada')), origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site' }, json: { message: 'from a browser app holding a key' } });
  t.equal(keyed.status, 200, 'a bearer request is not cookie-authenticated: no cross-origin check');
  const both = await call(`${session}/messages`, { method: 'POST', headers: { ...bearer('sv_not-a-key'), cookie: await signIn(c, 'ada@acme.test', 'ada-password-1') }, json: { message: 'x' } });
  t.equal(both.status, 404, 'a bearer, when sent, decides: the cookie does not rescue a bad key');
});
