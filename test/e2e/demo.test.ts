// The `npm start` demo, end to end: the printed key fires the demo trigger, and both subscribers (the
// builtin:procedure agent and the flow) answer from the demo handbook through knowledge.search.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { seedDemo } from '../../runtime/demo.js';
import { loadManifestFile } from '../../runtime/manifest/load.js';
import { bearer, call } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { sqlReader } from '../helpers/sql.js';

const demoManifest = fileURLToPath(new URL('../../examples/demo.workspace.json', import.meta.url));

t.test('the demo trigger starts an agent and a flow session that both settle with handbook answers', async (t) => {
  const server = await startTestServer(t);
  const demo = await seedDemo(server.service, loadManifestFile(demoManifest));
  t.match(demo.banner(server.url), new RegExp(`Authorization: Bearer ${demo.apiKey}`));

  const fired = await call(`${server.url}/api/v1/triggers/fire`, {
    method: 'POST',
    headers: bearer(demo.apiKey),
    json: { triggerId: demo.triggerId, input: { prompt: 'How do I fire a trigger?' } },
  });
  t.equal(fired.status, 202, fired.text);
  t.equal(fired.json.sessions.length, 2, 'one session per subscriber');

  const db = sqlReader(server.service);
  const settled = async (sessionId: string) => {
    for (let i = 0; i < 200; i++) {
      const rows = (await db.all('SELECT status FROM executions WHERE session_id = ?', sessionId)) as Array<{ status: string }>;
      if (rows.length > 0 && rows.every((r) => ['completed', 'failed', 'rejected'].includes(r.status))) return rows.map((r) => r.status);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return ['timeout'];
  };
  for (const { sessionId } of fired.json.sessions as Array<{ sessionId: string }>) {
    t.same(await settled(sessionId), ['completed'], `session ${sessionId} completed`);
    const answer = (await db.get("SELECT content FROM messages WHERE session_id = ? AND role = 'assistant' ORDER BY created_at DESC, position DESC LIMIT 1", sessionId)) as { content: string } | undefined;
    t.match(answer?.content ?? '', /triggers\/fire/i, 'the answer quotes the handbook article about firing');
  }

  const runs = await call(`${server.url}/api/v1/triggers/${demo.triggerId}/runs`, { headers: bearer(demo.apiKey) });
  t.equal(runs.status, 200);
  t.equal(runs.json.runs[0].outcome, 'succeeded');
});
