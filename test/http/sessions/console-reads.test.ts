// The console cookie on key routes (docs/decisions.md): a signed-in person reads sessions with it (writes: console-writes.test.ts).
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { seedDemo, DEMO_SIGN_IN } from '../../../runtime/demo.js';
import { loadManifestFile } from '../../../runtime/manifest/load.js';
import { bearer, call } from '../../helpers/http.js';
import { startTestServer } from '../../helpers/server.js';

const demoManifest = fileURLToPath(new URL('../../../examples/demo.workspace.json', import.meta.url));

t.test('GET session routes accept the console cookie; a signed-out cookie gets the uniform 404', async (t) => {
  const server = await startTestServer(t);
  const demo = await seedDemo(server.service, loadManifestFile(demoManifest));
  const fired = await call(`${server.url}/api/v1/triggers/fire`, { method: 'POST', headers: bearer(demo.apiKey), json: { triggerId: demo.triggerId, input: { prompt: 'hello' } } });
  t.equal(fired.status, 202, fired.text);
  const sessionId = fired.json.sessions[0].sessionId as string;

  const login = await call(`${server.url}/api/v1/console/login`, { method: 'POST', json: DEMO_SIGN_IN });
  t.equal(login.status, 200, login.text);
  const cookie = { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0] };

  const list = await call(`${server.url}/api/v1/agents/sessions`, { headers: cookie });
  t.equal(list.status, 200, list.text);
  t.ok(list.json.sessions.some((s: { sessionId: string }) => s.sessionId === sessionId), 'the list shows what the person can see');
  const one = await call(`${server.url}/api/v1/agents/sessions/${sessionId}`, { headers: cookie });
  t.equal(one.status, 200, one.text);
  const me = await call(`${server.url}/api/v1/me`, { headers: cookie });
  t.equal(me.json.email, DEMO_SIGN_IN.email);

  const open = await call(`${server.url}/api/v1/agents/${one.json.automationId}/sessions`, { method: 'POST', headers: cookie, json: { message: 'hi' } });
  t.equal(open.status, 404, 'opening a session still takes an sv_ key: the cookie alone is the uniform 404');

  const wrongBearer = await call(`${server.url}/api/v1/agents/sessions`, { headers: { ...cookie, authorization: 'Bearer sv_not-a-key' } });
  t.equal(wrongBearer.status, 404, 'a bearer, when sent, decides: a bad key is not rescued by the cookie');

  const logout = await call(`${server.url}/api/v1/console/logout`, { method: 'POST', headers: cookie });
  t.equal(logout.status, 204);
  const after = await call(`${server.url}/api/v1/agents/sessions`, { headers: cookie });
  t.equal(after.status, 404, 'a signed-out cookie reads nothing');
  t.equal(after.json.error.code, 'NOT_FOUND');
});
