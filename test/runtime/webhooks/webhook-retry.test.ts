// Webhook retries: exponential backoff with jitter on durable timers (moved by the clock), same webhook-id, then a final failure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../../runtime/clock.js';
import { DEFAULT_RETRY_POLICY, maxRetryDelay, retryDelay } from '../../../runtime/webhooks/webhook-retry-policy.js';
import { bearer, call } from '../../helpers/http.js';
import { startTriggerServer } from '../../http/triggers-admin/trigger-fixture.js';
import { testKeyRing } from '../manifest/manifest-fixtures.js';
import { startRecordingUpstream } from '../tools/recording-upstream.js';
import { pauseNightly, startWebhookWorld } from './webhook-fixture.js';

t.test('retryDelay: doubling windows, capped, jittered within the upper half', async (t) => {
  const at = (random: number) => ({ ...DEFAULT_RETRY_POLICY, random: () => random });
  t.equal(retryDelay(at(0), 1), 30_000);
  t.equal(retryDelay(at(0.999999), 1), 60_000);
  t.equal(retryDelay(at(0), 3), 120_000);
  t.equal(maxRetryDelay(DEFAULT_RETRY_POLICY, 4), 480_000);
  t.equal(maxRetryDelay(DEFAULT_RETRY_POLICY, 20), 6 * 3_600_000, 'capped');
  const spread = new Set(Array.from({ length: 50 }, () => retryDelay(DEFAULT_RETRY_POLICY, 5)));
  t.ok(spread.size > 1, 'jitter spreads retries');
  for (const d of spread) t.ok(d >= 480_000 && d <= 960_000);
});

t.test('500s are retried with backoff when the clock reaches each next attempt; the same webhook-id, freshly signed', async (t) => {
  const w = await startWebhookWorld(t);
  const { json: reg } = await w.register('ada', { url: `${w.receiver.baseUrl}/hooks` });
  w.answerWith(500, 502, 200);
  await w.fire('empty');
  await w.settle();
  t.equal(w.posts().length, 1, 'first attempt at once');
  const log1 = (await w.deliveries('ada', reg.webhook.id)).json.deliveries[0];
  t.match(log1, { status: 'pending', attempts: 1, lastStatus: 500 });
  const wait1 = Date.parse(log1.nextAttemptAt) - Date.parse(log1.attemptLog[0].at);
  t.ok(wait1 >= maxRetryDelay(DEFAULT_RETRY_POLICY, 1) / 2 && wait1 <= maxRetryDelay(DEFAULT_RETRY_POLICY, 1), `first wait ${wait1} ms within the jitter window`);

  w.clock.set(Date.parse(log1.nextAttemptAt) - 1);
  await w.settle();
  t.equal(w.posts().length, 1, 'not a millisecond early');
  w.clock.set(Date.parse(log1.nextAttemptAt));
  await w.settle();
  t.equal(w.posts().length, 2, 'second attempt when due');

  const log2 = (await w.deliveries('ada', reg.webhook.id)).json.deliveries[0];
  t.match(log2, { status: 'pending', attempts: 2, lastStatus: 502 });
  const wait2 = Date.parse(log2.nextAttemptAt) - Date.parse(log2.attemptLog[1].at);
  t.ok(wait2 >= maxRetryDelay(DEFAULT_RETRY_POLICY, 2) / 2 && wait2 <= maxRetryDelay(DEFAULT_RETRY_POLICY, 2), 'the window doubled');
  w.clock.advance(maxRetryDelay(DEFAULT_RETRY_POLICY, 2));
  await w.settle();

  const posts = w.posts();
  t.equal(posts.length, 3);
  t.equal(new Set(posts.map((p) => p.headers['webhook-id'])).size, 1, 'one message id across retries');
  t.equal(new Set(posts.map((p) => p.body)).size, 1, 'the same body');
  t.equal(new Set(posts.map((p) => p.headers['webhook-timestamp'])).size, 3, 'each attempt signed at its own time');
  const hook = new Webhook(reg.secret);
  for (const p of posts) {
    const at = new Date(Number(p.headers['webhook-timestamp']) * 1000);
    t.equal(p.headers['webhook-signature'], hook.sign(String(p.headers['webhook-id']), at, p.body), 'a valid signature for its timestamp');
  }
  const done = (await w.deliveries('ada', reg.webhook.id)).json.deliveries[0];
  t.match(done, { status: 'delivered', attempts: 3, lastStatus: 200, nextAttemptAt: null });
  t.same(done.attemptLog.map((a: any) => a.statusCode), [500, 502, 200]);

  w.clock.advance(24 * 3_600_000);
  await w.settle();
  t.equal(w.posts().length, 3, 'nothing after delivery');
});

t.test('an unreachable endpoint and one that keeps failing: retried up to the limit, then failed', async (t) => {
  const w = await startWebhookWorld(t);
  const { json: reg } = await w.register('ada', { url: `${w.receiver.baseUrl}/hooks` });
  w.answerWith(503);
  await w.fire('empty');
  await w.settle();
  for (let attempt = 1; attempt < DEFAULT_RETRY_POLICY.maxAttempts; attempt++) {
    w.clock.advance(maxRetryDelay(DEFAULT_RETRY_POLICY, attempt));
    await w.settle();
  }
  t.equal(w.posts().length, DEFAULT_RETRY_POLICY.maxAttempts);
  const failed = (await w.deliveries('ada', reg.webhook.id)).json.deliveries[0];
  t.match(failed, { status: 'failed', attempts: DEFAULT_RETRY_POLICY.maxAttempts, lastStatus: 503, nextAttemptAt: null });
  w.clock.advance(7 * 24 * 3_600_000);
  await w.settle();
  t.equal(w.posts().length, DEFAULT_RETRY_POLICY.maxAttempts, 'given up');

  // Nobody listening on the port: a network failure is retried like a 5xx, and recorded without a status.
  const dead = `http://127.0.0.1:${w.receiver.port}`;
  await w.receiver.close();
  const { json: deadReg } = await w.register('ada', { url: `${dead}/gone` });
  await w.fire('empty');
  await w.settle();
  const log = (await w.deliveries('ada', deadReg.webhook.id)).json.deliveries[0];
  t.match(log, { status: 'pending', attempts: 1, lastStatus: null, lastError: 'unavailable' });
});

t.test('retries survive a restart: the pending attempt is a durable timer', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-webhooks-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const receiver = await startRecordingUpstream();
  t.teardown(() => receiver.close());
  let status = 500;
  receiver.respond((_r, res) => {
    res.writeHead(status);
    res.end();
  });
  const options = {
    dbPath: join(dir, 'db.sqlite'),
    keyRing: testKeyRing(),
    clock: new ManualClock(Date.UTC(2026, 10, 22, 12)),
    config: { webhooksAllowPrivateNetworks: true },
    tweak: pauseNightly,
  };
  const first = await startTriggerServer(t, options);
  const reg = await call(`${first.server.url}/api/v1/webhooks`, { method: 'POST', headers: { cookie: await first.cookie('ada') }, json: { url: `${receiver.baseUrl}/h` } });
  await call(`${first.server.url}/api/v1/triggers/fire`, { method: 'POST', headers: bearer(first.refs['bob-key']!), json: { triggerId: first.refs.empty } });
  await first.settle();
  t.equal(receiver.received.length, 1);
  await first.server.close();

  status = 204;
  options.clock.advance(maxRetryDelay(DEFAULT_RETRY_POLICY, 1));
  const second = await startTriggerServer(t, options);
  await second.settle();
  t.equal(receiver.received.length, 2, 'the due retry ran at boot');
  const [delivery] = (await second.server.service.store.repos.webhooks.deliveriesPage(reg.json.webhook.id, null, 5));
  t.match(delivery, { status: 'delivered', attempts: 2, lastStatus: 204 });
});
