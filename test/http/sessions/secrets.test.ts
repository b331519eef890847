// The canary caller token reaches the crm upstream and nothing else: not logs, responses, the stream, or the database file.
import t from 'tap';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CANARY, crmCredentials, startConversation } from './conversation-fixture.js';

t.test('caller material is used upstream and leaves no trace anywhere else', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-canary-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'db.sqlite');
  const c = await startConversation(t, { dbPath });
  const answers: string[] = [];
  const SECOND = 'second-canary-7e2b41d0aa';
  // The upstream echoes what it received, Authorization included, as a hostile or careless service might.
  c.upstream.respond((request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'c-1', tier: 'pro', echoed: request.headers.authorization }));
  });

  const lookup = await c.open('lookup', 'ada', { message: 'id: c-1', callerCredentials: crmCredentials() });
  answers.push(lookup.text);
  const gated = await c.open('upgrader', 'ada', { message: '{"id":"c-1","tier":"pro"}', callerCredentials: crmCredentials() });
  answers.push(gated.text);
  await c.settle();
  const approval = await c.post(`/agents/sessions/${gated.json.sessionId}/turn-approval`, 'ada', { decision: 'approved', callerCredentials: crmCredentials(SECOND) });
  answers.push(approval.text);
  await c.settle();

  const stream = await fetch(`${c.server.url}/api/v1/agents/sessions/${gated.json.sessionId}/stream`, {
    headers: { authorization: `Bearer ${c.key('ada')}`, 'last-event-id': '0' },
  });
  const reader = stream.body!.getReader();
  let frames = '';
  while (!frames.includes('"turn.completed"')) frames += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  for (const sessionId of [lookup.json.sessionId, gated.json.sessionId]) answers.push((await c.get(`/agents/sessions/${sessionId}`, 'ada')).text);

  t.same(c.upstream.received.map((r) => r.headers.authorization), [`Bearer ${CANARY}`, `Bearer ${CANARY}`, `Bearer ${SECOND}`], 'the upstream got the material');
  for (const secret of [CANARY, SECOND]) {
    t.notOk(answers.some((text) => text.includes(secret)), 'not in any response (upstream echoes are redacted)');
    t.notOk(frames.includes(secret), 'not on the stream');
    t.notOk(c.server.logs.some((line) => line.includes(secret)), 'not in the logs');
  }
  for (const msg of ['turn started', 'turn suspended', 'turn completed']) {
    t.ok(c.server.logs.some((line) => line.includes(`"msg":"${msg}"`)), `the lifecycle line "${msg}" is among the lines checked`);
  }
  t.ok(answers.join('').includes('[redacted]'), 'the echoed token was replaced');
  t.equal(await c.count('SELECT count(*) AS n FROM caller_grants'), 0, 'grants deleted at settle');

  // The database's files on disk: SQLite's (a PostgreSQL cluster's files are not the test's to read).
  if (c.server.service.driver.sqlite === null) return;
  const files = [dbPath, `${dbPath}-wal`].filter(existsSync);
  for (const file of files) {
    const bytes = readFileSync(file).toString('latin1');
    t.notOk(bytes.includes(CANARY) || bytes.includes(SECOND), `not in ${file.endsWith('-wal') ? 'the WAL' : 'the database file'}`);
  }
  await c.server.close();
  const closed = readFileSync(dbPath).toString('latin1');
  t.notOk(closed.includes(CANARY) || closed.includes(SECOND), 'not in the checkpointed database file');
});
