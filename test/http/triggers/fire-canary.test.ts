// A canary caller credential reaches the crm upstream and nowhere else: logs, responses, Run history, the database files.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { crmResponder } from '../sessions/conversation-fixture.js';
import { startFireServer } from './fire-server.js';
import { sqlReader } from '../../helpers/sql.js';

const CANARY = 'fire-canary-7d41c0b9e2';

t.test('the canary is used upstream, then absent from logs, responses, Run history and the DB files after settle', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-fire-canary-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const f = await startFireServer(t, { dbPath: join(dir, 'fire.db') });
  // The crm answers only once the test has looked at the grant held mid-execution.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  f.upstream.respond((request, res) => void gate.then(() => crmResponder(request, res)));
  const answers: string[] = [];
  const json = {
    triggerId: f.refs['new-lead'],
    input: { id: 'c-42' },
    callerCredentials: { integrations: { crm: { token: CANARY }, unused: { fields: { api_key: `${CANARY}-unused` } } } },
    callerCredentialExpiresAt: '2099-01-01T00:00:00Z',
  };
  const fired = await f.fire('bob', json, { 'Idempotency-Key': 'canary-1' });
  t.equal(fired.status, 202);
  answers.push(fired.text);
  const replay = await f.fire('bob', json, { 'Idempotency-Key': 'canary-1' });
  answers.push(replay.text);
  const lookup = fired.json.sessions.find((s: { automationId: string }) => s.automationId === f.refs.lookup);
  t.ok(lookup, 'the lookup agent started');
  const { repos } = f.server.service.store;
  const canaryCall = () => f.upstream.received.some((r) => r.headers.authorization === `Bearer ${CANARY}`);
  while (!canaryCall()) await f.upstream.nextRequest();
  t.same((await repos.executions.latestExecution(lookup.sessionId))?.grantIntegrationIds, ['crm'], 'while it runs, a grant holds only the caller-bound crm entry');
  t.equal((await sqlReader(f.server.service).value('SELECT COUNT(*) FROM caller_grants')), 1);
  release();

  await f.settle();
  const toCrm = f.upstream.received.filter((r) => r.headers.authorization === `Bearer ${CANARY}`);
  t.equal(toCrm.length, 1, 'the lookup agent called the crm as the caller, with the canary');
  t.notOk(JSON.stringify(f.upstream.received).includes(`${CANARY}-unused`), 'material for an integration no subscriber binds is never sent');
  t.equal((await repos.executions.latestExecution(lookup.sessionId))?.status, 'completed');

  const runs = await f.runs('bob', 'new-lead');
  const run = await f.run('bob', 'new-lead', fired.json.runId);
  const session = await call(`${f.server.url}/api/v1/agents/sessions/${lookup.sessionId}`, { headers: bearer(f.key('bob')) });
  answers.push(runs.text, run.text, session.text);
  t.same(run.json.unusedCredentialIntegrationIds, ['unused'], 'Run history names the unused integration id only');

  const count = (await sqlReader(f.server.service).value('SELECT COUNT(*) FROM caller_grants'));
  t.equal(count, 0, 'the grant was deleted when the execution settled');
  for (const [i, text] of answers.entries()) t.notOk(text.includes(CANARY), `response ${i} carries no canary`);
  t.notOk(f.server.logs.join('').includes(CANARY), 'no log line carries the canary');

  // The database's files on disk: SQLite's here (WAL folded back first); a PostgreSQL cluster's files are not the test's.
  if (f.server.service.driver.sqlite === null) return;
  f.server.service.driver.sqlite.checkpoint();
  const scan = () => {
    for (const name of readdirSync(dir)) t.notOk(readFileSync(join(dir, name)).includes(CANARY), `${name} carries no canary`);
  };
  scan();
  await f.server.close();
  scan();
});
