// Outbound webhooks: registration (secret once, org owner/admin), a signed trigger.run.completed once a run's work settles.
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { startWebhookWorld } from './webhook-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

t.test('registration: the secret is returned once; owner/admin only; other organizations\' ids are 404', async (t) => {
  const w = await startWebhookWorld(t);
  const created = await w.register('ada', { url: `${w.receiver.baseUrl}/hooks` });
  t.equal(created.status, 201);
  t.match(created.json.webhook, { url: `${w.receiver.baseUrl}/hooks`, events: ['trigger.run.completed'], active: true });
  t.match(created.json.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const listed = await w.list('eve');
  t.equal(listed.status, 200, 'an organization admin may manage webhooks');
  t.same(listed.json.webhooks, [created.json.webhook]);
  t.notOk(listed.text.includes(created.json.secret), 'never listed again');
  const { repos } = w.server.service.store;
  t.notOk((await repos.webhooks.endpoint(created.json.webhook.id))!.secretSealed.toString('latin1').includes(created.json.secret.slice(6)), 'sealed at rest');

  t.equal((await w.register('bob', { url: `${w.receiver.baseUrl}/x` })).status, 403, 'a member is not');
  t.equal((await w.list('bob')).status, 403);
  t.same((await w.list('gina')).json.webhooks, [], 'another organization sees none');
  t.equal((await w.deliveries('gina', created.json.webhook.id)).status, 404);
  t.equal((await w.remove('gina', created.json.webhook.id)).status, 404);
  t.equal((await w.remove('ada', 'not-a-uuid')).status, 404);
  for (const json of [{}, { url: 'ftp://example.com/x' }, { url: 'not a url' }, { url: 'https://user:pw@example.com/x' }, { url: `${w.receiver.baseUrl}/x`, events: ['session.changed'] }, { url: `${w.receiver.baseUrl}/x`, extra: 1 }]) {
    const answer = await w.register('ada', json);
    t.equal(answer.status, 400, JSON.stringify(json));
  }
  t.equal((await w.remove('ada', created.json.webhook.id)).status, 204);
  t.same((await w.list('ada')).json.webhooks, []);
});

t.test('a firing that starts nothing is finished at once: one signed delivery the standardwebhooks verifier accepts', async (t) => {
  const w = await startWebhookWorld(t);
  const { json: reg } = await w.register('ada', { url: `${w.receiver.baseUrl}/hooks?team=ops` });
  const fired = await w.fire('empty');
  t.equal(fired.status, 202);
  await w.settle();
  const posts = w.posts();
  t.equal(posts.length, 1);
  const post = posts[0]!;
  t.equal(post.rawPath, '/hooks?team=ops');
  t.equal(post.headers['content-type'], 'application/json');
  const verified = new Webhook(reg.secret).verify(post.body, post.headers as Record<string, string>) as any;
  t.equal(verified.type, 'trigger.run.completed');
  t.match(verified.data, { runId: fired.json.runId, triggerId: w.refs.empty, triggerName: 'Nobody listens', triggerType: 'api', source: 'api', outcome: 'skipped', result: 'skipped', subscribers: [] });
  t.equal(post.headers['webhook-id'], (await w.server.service.store.repos.webhooks.deliveriesPage(reg.webhook.id, null, 5))[0]!.id, 'webhook-id is the delivery id');
  t.throws(() => new Webhook('whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD').verify(post.body, post.headers as Record<string, string>), 'another secret does not verify');

  const log = await w.deliveries('ada', reg.webhook.id);
  t.equal(log.status, 200);
  t.match(log.json.deliveries[0], { eventType: 'trigger.run.completed', runId: fired.json.runId, status: 'delivered', attempts: 1, nextAttemptAt: null, lastStatus: 200, lastError: null });
  t.equal(log.json.deliveries[0].attemptLog.length, 1);
  t.match(log.json.deliveries[0].attemptLog[0], { attempt: 1, statusCode: 200, error: null });
  t.same(log.json.deliveries[0].payload, verified);
});

t.test('a run is announced once its sessions settle: per-session status, once however many executions settle', async (t) => {
  const w = await startWebhookWorld(t);
  const { json: reg } = await w.register('ada', { url: `${w.receiver.baseUrl}/hooks` });
  const fired = await w.fire('fan', { id: 'c-1' });
  t.equal(fired.status, 202);
  await w.settle();
  const posts = w.posts();
  t.equal(posts.length, 1, 'one delivery for the run');
  const payload = new Webhook(reg.secret).verify(posts[0]!.body, posts[0]!.headers as Record<string, string>) as any;
  t.equal(payload.data.runId, fired.json.runId);
  t.equal(payload.data.outcome, 'partial', 'the Run history outcome at fire time');
  const bySubscriber = Object.fromEntries(payload.data.subscribers.map((s: any) => [s.automationId, s]));
  t.match(bySubscriber[w.refs.lookup!], { start: 'started', sessionStatus: 'completed', errorCode: null });
  t.match(bySubscriber[w.refs.enrich!], { start: 'started', sessionStatus: 'completed' });
  t.match(bySubscriber[w.refs.upgrader!], { start: 'failed', code: 'CALLER_CREDENTIALS_REQUIRED', sessionId: null, sessionStatus: null });
  t.match(bySubscriber[w.refs.drafty!], { start: 'skipped', code: 'NOT_PUBLISHED' });
  t.match(bySubscriber[w.refs.gated!], { start: 'skipped', code: 'ENTITLEMENT_DISABLED' });
  t.equal(payload.data.result, 'partial');
  for (const started of fired.json.sessions) t.equal(bySubscriber[started.automationId].sessionId, started.sessionId);

  // Re-checking a finished run (as every later settlement does) announces nothing new.
  t.equal(await w.server.service.services.runSettlement.check(fired.json.runId), 0);
  await w.settle();
  t.equal(w.posts().length, 1);
});

t.test('schedule and event firings are announced too; every endpoint gets its own delivery; a deleted endpoint none', async (t) => {
  const w = await startWebhookWorld(t);
  const a = (await w.register('ada', { url: `${w.receiver.baseUrl}/a` })).json;
  const b = (await w.register('eve', { url: `${w.receiver.baseUrl}/b` })).json;
  const gone = (await w.register('ada', { url: `${w.receiver.baseUrl}/gone` })).json;
  t.equal((await w.remove('ada', gone.webhook.id)).status, 204);
  const schedule = await w.create('ada', { type: 'schedule', domainId: w.refs.sales, name: 'Minutely', cron: '* * * * *', subscribers: [w.refs.upgrader] });
  w.clock.advance(60_000);
  await w.settle();
  const paths = w.posts().map((p) => p.pathname).sort();
  t.same(paths, ['/a', '/b'], 'both live endpoints, not the deleted one');
  for (const post of w.posts()) {
    const secret = post.pathname === '/a' ? a.secret : b.secret;
    const payload = new Webhook(secret).verify(post.body, post.headers as Record<string, string>) as any;
    t.match(payload.data, { triggerId: schedule.json.trigger.id, source: 'schedule', outcome: 'failed', result: 'failed' });
    t.equal(payload.data.subscribers[0].code, 'CALLER_CREDENTIALS_REQUIRED');
  }
  t.not(w.posts()[0]!.headers['webhook-id'], w.posts()[1]!.headers['webhook-id'], 'one message id per endpoint delivery');
});

t.test('an organization without endpoints tracks nothing; endpoints of another organization hear nothing', async (t) => {
  const w = await startWebhookWorld(t);
  await w.register('gina', { url: `${w.receiver.baseUrl}/globex` });
  const fired = await w.fire('quiet');
  await w.settle();
  t.equal(w.posts().length, 0);
  const notices = (await sqlReader(w.server.service).get('SELECT count(*) AS n FROM webhook_run_notices WHERE run_id = ?', fired.json.runId)) as { n: number };
  t.equal(notices.n, 0);
});

t.test('an endpoint registered after fires were checked (and "no endpoint" cached) hears the very next firing', async (t) => {
  const w = await startWebhookWorld(t);
  await w.fire('empty');
  await w.settle();
  t.equal(w.posts().length, 0, 'no endpoint yet: nothing announced');
  await w.register('ada', { url: `${w.receiver.baseUrl}/late` });
  const fired = await w.fire('empty');
  await w.settle();
  const posts = w.posts();
  t.equal(posts.length, 1, 'the registration cleared the cached answer at once');
  t.equal(JSON.parse(posts[0]!.body).data.runId, fired.json.runId);
});
