// POST /api/v1/triggers/fire over the real server: body rules, uniform 404 / 403, Idempotency-Key rules (SPEC Trigger firing).
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { rawPost, startFireServer } from './fire-server.js';

const DAY = 24 * 3_600_000;

t.test('202 { runId, sessions } once committed; unknown body fields stripped; input defaults to {}', async (t) => {
  const f = await startFireServer(t);
  const answer = await f.fire('bob', { triggerId: f.refs.quiet, somethingElse: { deep: true }, callerCredentialz: 1 });
  t.equal(answer.status, 202);
  t.same(Object.keys(answer.json).sort(), ['runId', 'sessions']);
  t.equal(answer.json.sessions.length, 1);
  t.same(answer.json.sessions[0].automationId, f.refs.echo);
  t.notOk(answer.headers.has('idempotency-replayed'), 'an original is not marked replayed');
  const { repos } = f.server.service.store;
  t.equal((await repos.triggerRuns.run(answer.json.runId))?.outcome, 'succeeded', 'the firing was committed before the answer');
  await f.written();
  t.equal((await repos.sessions.session(answer.json.sessions[0].sessionId))?.triggerRunId, answer.json.runId);
  const first = (await repos.sessions.conversation(answer.json.sessions[0].sessionId))[0];
  t.equal(first?.content, 'The trigger "Quiet" fired with no input.', 'an Agent without input.prompt gets the payload as text');

  const input = { id: 'c-9', prompt: 'not for flows', nested: { list: [1, 'two', null] } };
  const flow = await f.fire('bob', { triggerId: f.refs['flow-only'], input });
  t.equal(flow.status, 202);
  await f.written();
  const execution = (await repos.executions.latestExecution(flow.json.sessions[0].sessionId));
  t.same(execution!.input, input, 'a Flow receives input verbatim');
  await f.settle();
});

t.test('400 VALIDATION for a malformed body; callerCredentials stays strict', async (t) => {
  const f = await startFireServer(t);
  const bad = [
    { triggerId: 'not-a-uuid' },
    { input: {} },
    { triggerId: f.refs.quiet, input: ['a'] },
    { triggerId: f.refs.quiet, input: 'text' },
    { triggerId: f.refs.quiet, callerCredentials: { integrations: { crm: { token: 'x', extra: 1 } } } },
    { triggerId: f.refs.quiet, callerCredentials: { integrations: { crm: { fields: {} } } } },
    { triggerId: f.refs.quiet, callerCredentials: { integrations: { crm: { token: 'line\nbreak' } } } },
    { triggerId: f.refs.quiet, callerCredentials: {} },
    { triggerId: f.refs.quiet, callerCredentialExpiresAt: 'tomorrow' },
    { triggerId: f.refs.quiet, idempotencyKey: 'has space' },
  ];
  for (const json of bad) {
    const answer = await f.fire('bob', json);
    t.equal(answer.status, 400, JSON.stringify(json));
    t.equal(answer.json.error.code, 'VALIDATION');
  }
  const text = await call(`${f.server.url}/api/v1/triggers/fire`, { method: 'POST', headers: { ...bearer(f.key('bob')), 'content-type': 'application/json' }, body: '{' });
  t.equal(text.status, 400);
  t.equal((await f.server.service.store.repos.triggerRuns.countOfTrigger(f.refs.quiet!)), 0, 'nothing fired');
  t.notOk(JSON.stringify(await f.fire('bob', { triggerId: f.refs.quiet, callerCredentials: { integrations: { crm: { token: 'tok-secret-1', bad: 1 } } } })).includes('tok-secret-1'), 'errors never echo the credential');
});

t.test('rule 1: uniform 404 for a missing or wrong key, an unknown id and another organization\'s trigger; 403 in the organization', async (t) => {
  const f = await startFireServer(t);
  const url = `${f.server.url}/api/v1/triggers/fire`;
  const noKey = await call(url, { method: 'POST', json: { triggerId: f.refs.quiet } });
  const wrongKey = await call(url, { method: 'POST', headers: bearer('sv_notakey'), json: { triggerId: f.refs.quiet } });
  const unknown = await f.fire('bob', { triggerId: '01a20378-0000-7000-8000-000000000000' });
  const otherOrg = await f.fire('gina', { triggerId: f.refs.quiet });
  for (const answer of [noKey, wrongKey, unknown, otherOrg]) {
    t.equal(answer.status, 404);
    t.equal(answer.text, noKey.text, 'byte-identical 404 body');
  }
  const eve = await f.fire('eve', { triggerId: f.refs.quiet });
  t.equal(eve.status, 403, 'an organization admin outside the domain cannot execute there');
  t.equal(eve.json.error.code, 'FORBIDDEN');
  t.equal((await f.fire('vic', { triggerId: f.refs.quiet })).status, 403, 'a domain viewer cannot execute');
  t.equal((await f.fire('bob', { triggerId: f.refs.paused })).status, 404, 'a paused trigger');
  t.equal((await f.fire('bob', { triggerId: f.refs.nightly })).status, 404, 'a schedule trigger is not an API trigger');
  t.equal((await f.fire('ada', { triggerId: f.refs.quiet })).status, 202, 'the domain owner can');
  await f.settle();
});

t.test('rule 6: header wins over body idempotencyKey; completed replay is 202 with the original body and Idempotency-Replayed', async (t) => {
  const f = await startFireServer(t);
  const json = { triggerId: f.refs.quiet, input: { n: 1 }, idempotencyKey: 'body-key' };
  const original = await f.fire('bob', json, { 'Idempotency-Key': 'header-key' });
  t.equal(original.status, 202);
  const viaBody = await f.fire('bob', { ...json, idempotencyKey: 'header-key' });
  t.equal(viaBody.status, 202);
  t.equal(viaBody.headers.get('idempotency-replayed'), 'true', 'the claim was taken under the header key');
  t.same(viaBody.json, original.json, 'original body, runId and sessionIds');
  const bodyKey = await f.fire('bob', json);
  t.notOk(bodyKey.headers.has('idempotency-replayed'), 'the body key was not used while a header was present');
  t.not(bodyKey.json.runId, original.json.runId);
  await f.settle();
  t.equal((await f.server.service.store.repos.triggerRuns.countOfTrigger(f.refs.quiet!)), 2, 'the replay started nothing');
});

t.test('rule 6: repeated, comma-separated or malformed Idempotency-Key headers are 400 before any claim', async (t) => {
  const f = await startFireServer(t);
  const url = `${f.server.url}/api/v1/triggers/fire`;
  const body = JSON.stringify({ triggerId: f.refs.quiet });
  const auth = { authorization: `Bearer ${f.key('bob')}` };
  const repeated = await rawPost(url, { ...auth, 'Idempotency-Key': ['k-1', 'k-1'] }, body);
  t.equal(repeated.status, 400, 'the same key twice is still a repeated header');
  t.equal(repeated.json.error.code, 'VALIDATION');
  for (const value of ['k-1, k-2', 'k-1,k-2', '', 'sp ace', 'x'.repeat(129), 'a/b', 'k\tk']) {
    t.equal((await rawPost(url, { ...auth, 'Idempotency-Key': value }, body)).status, 400, JSON.stringify(value));
  }
  t.equal((await f.server.service.store.repos.fireClaims.count()), 0, 'no claim was created');
  const longest = await rawPost(url, { ...auth, 'Idempotency-Key': 'a.b_c:d-' + 'x'.repeat(120) }, body);
  t.equal(longest.status, 202, '128 characters of the allowed set');
  await f.settle();
});

t.test('409 IDEMPOTENCY_KEY_REUSED for one changed byte of a credential under a used key; 24 h later the key is free', async (t) => {
  const f = await startFireServer(t);
  const creds = (token: string) => ({ integrations: { crm: { token } } });
  const json = { triggerId: f.refs.quiet, input: { id: 'c-1' }, callerCredentials: creds('tok-AAAA') };
  const headers = { 'Idempotency-Key': 'reuse-1' };
  const first = await f.fire('bob', json, headers);
  t.equal(first.status, 202);
  const changed = await f.fire('bob', { ...json, callerCredentials: creds('tok-AAAB') }, headers);
  t.equal(changed.status, 409);
  t.equal(changed.json.error.code, 'IDEMPOTENCY_KEY_REUSED');
  t.notOk(changed.text.includes('tok-AAA'), 'the refusal does not echo credentials');
  const input = await f.fire('bob', { ...json, input: { id: 'c-2' } }, headers);
  t.equal(input.json.error.code, 'IDEMPOTENCY_KEY_REUSED');
  const target = await f.fire('bob', { ...json, triggerId: f.refs['flow-only'] }, headers);
  t.equal(target.json.error.code, 'IDEMPOTENCY_KEY_REUSED');

  f.server.clock.advance(DAY);
  const later = await f.fire('bob', { ...json, callerCredentials: creds('tok-AAAB') }, headers);
  t.equal(later.status, 202, 'after 24 hours the key is reusable at once');
  t.notOk(later.headers.has('idempotency-replayed'));
  t.not(later.json.runId, first.json.runId);
  await f.settle();
});

t.test('Run history over HTTP: key or console cookie, cursor pagination, per-subscriber results and outcome', async (t) => {
  const f = await startFireServer(t);
  const fired: string[] = [];
  for (let i = 0; i < 3; i++) {
    fired.push((await f.fire('bob', { triggerId: f.refs.fan, input: { id: `c-${i}` }, callerCredentials: { integrations: { crm: { token: 't' }, other: { token: 'u' } } } })).json.runId);
    f.server.clock.advance(1_000);
  }
  await f.settle();
  const page1 = await f.runs('bob', 'fan', '?limit=2');
  t.equal(page1.status, 200);
  t.same(page1.json.runs.map((r: any) => r.runId), [fired[2], fired[1]], 'newest first');
  const page2 = await f.runs('bob', 'fan', `?limit=2&cursor=${encodeURIComponent(page1.json.nextCursor)}`);
  t.same(page2.json.runs.map((r: any) => r.runId), [fired[0]]);
  t.equal(page2.json.nextCursor, null);

  const one = await f.run('bob', 'fan', fired[0]!);
  t.equal(one.status, 200);
  t.same(one.json.unusedCredentialIntegrationIds, ['other']);
  t.same(
    one.json.subscribers.map((s: any) => [s.automationId, s.status, s.code]),
    [
      [f.refs.lookup, 'started', null],
      [f.refs.upgrader, 'started', null],
      [f.refs.enrich, 'started', null],
      [f.refs.drafty, 'skipped', 'NOT_PUBLISHED'],
      [f.refs.gated, 'skipped', 'ENTITLEMENT_DISABLED'],
    ],
  );
  t.equal(one.json.outcome, 'partial');
  t.ok(one.json.subscribers[0].sessionId);

  const login = await call(`${f.server.url}/api/v1/console/login`, { method: 'POST', json: { email: 'vic@acme.test', password: 'vic-password-1' } });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const viaCookie = await call(`${f.server.url}/api/v1/triggers/${f.refs.fan}/runs/${fired[0]}`, { headers: { cookie } });
  t.equal(viaCookie.status, 200, 'a domain viewer reads Run history with the console cookie');
  t.same(viaCookie.json, one.json);

  t.equal((await f.runs('gina', 'fan')).status, 404, 'another organization');
  t.equal((await f.runs('eve', 'fan')).status, 403, 'in the organization, outside the domain');
  t.equal((await call(`${f.server.url}/api/v1/triggers/${f.refs.fan}/runs`)).status, 404, 'no credential at all');
  t.equal((await f.run('bob', 'quiet', fired[0]!)).status, 404, 'a run under another trigger');
  t.equal((await f.runs('bob', 'fan', '?limit=0')).status, 400);
  t.equal((await f.runs('bob', 'fan', '?cursor=garbage')).status, 400);
});
