// service.close() during a webhook attempt: the attempt's outcome is recorded before the store closes, never lost or retried.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { call } from '../../helpers/http.js';
import { startTriggerServer } from '../../http/triggers-admin/trigger-fixture.js';
import { testKeyRing } from '../manifest/manifest-fixtures.js';
import { startRecordingUpstream } from '../tools/recording-upstream.js';
import { pauseNightly } from './webhook-fixture.js';

t.test('close() waits for a timer delivery in flight: the webhook attempt is recorded delivered, and the next boot sends nothing again', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-webhook-close-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const receiver = await startRecordingUpstream();
  t.teardown(() => receiver.close());
  const held: Array<() => void> = [];
  receiver.respond((_request, res) => held.push(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')));
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  const options = { dbPath: join(dir, 'db.sqlite'), keyRing: testKeyRing(), clock, config: { webhooksAllowPrivateNetworks: true }, tweak: pauseNightly };

  const first = await startTriggerServer(t, options);
  const reg = await call(`${first.server.url}/api/v1/webhooks`, { method: 'POST', headers: { cookie: await first.cookie('ada') }, json: { url: `${receiver.baseUrl}/h` } });
  t.equal(reg.status, 201, reg.text);
  const fired = await call(`${first.server.url}/api/v1/triggers/fire`, { method: 'POST', headers: { authorization: `Bearer ${first.refs['bob-key']}` }, json: { triggerId: first.refs.empty, input: {} } });
  t.equal(fired.status, 202, fired.text);
  await receiver.nextRequest();

  // The attempt waits on the receiver while close() runs. Before the fix close() returned within a few ms and the
  // attempt then met a closed store; the bound only keeps this test from hanging if close() waited for nothing else.
  let closed = false;
  const closing = first.server.close().then(() => (closed = true));
  await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 300))]);
  t.notOk(closed, 'close() is still waiting for the attempt in flight');
  held.shift()!();
  await closing;
  t.notOk(first.server.logs.some((line) => line.includes('timer handler failed')), 'the attempt did not fail against a closed store');

  const second = await startTriggerServer(t, options);
  await second.settle();
  const log = await call(`${second.server.url}/api/v1/webhooks/${reg.json.webhook.id}/deliveries`, { headers: { cookie: await second.cookie('ada') } });
  t.match(log.json.deliveries, [{ status: 'delivered', attempts: 1, lastStatus: 200 }], 'the attempt made during close() is on record');
  t.equal(receiver.received.length, 1, 'not sent again by the next boot');
});
