// A run settled but never announced (the process died between the commit and its check) is announced at the next boot.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../../runtime/clock.js';
import { newId } from '../../../runtime/ids.js';
import { call } from '../../helpers/http.js';
import { startTriggerServer } from '../../http/triggers-admin/trigger-fixture.js';
import { testKeyRing } from '../manifest/manifest-fixtures.js';
import { startRecordingUpstream } from '../tools/recording-upstream.js';
import { pauseNightly } from './webhook-fixture.js';

t.test('boot reconcile announces finished runs that were never announced, once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-reconcile-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const receiver = await startRecordingUpstream();
  t.teardown(() => receiver.close());
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  const options = { dbPath: join(dir, 'db.sqlite'), keyRing: testKeyRing(), clock, config: { webhooksAllowPrivateNetworks: true }, tweak: pauseNightly };

  const first = await startTriggerServer(t, options);
  const reg = await call(`${first.server.url}/api/v1/webhooks`, { method: 'POST', headers: { cookie: await first.cookie('ada') }, json: { url: `${receiver.baseUrl}/h` } });
  const { repos } = first.server.service.store;
  // A firing committed by a process that died before it could check the run (nothing started: finished at once).
  const runId = newId();
  const orgId = (await repos.tenancy.domain(first.refs.sales!))!.orgId;
  await first.server.service.store.writer.submit(async (tx) =>
    (await tx.repos.triggerRuns.insertRun({
      id: runId,
      triggerId: first.refs.empty!,
      orgId,
      source: 'api',
      firedBy: null,
      outcome: 'skipped',
      unusedCredentialIntegrations: [],
      idempotencyKey: null,
      results: [],
      createdAt: clock.now(),
    })),
  );
  await first.settle();
  t.equal(receiver.received.length, 0, 'nobody checked it');
  await first.server.close();

  const second = await startTriggerServer(t, options);
  await second.settle();
  t.equal(receiver.received.length, 1, 'announced at boot');
  const payload = new Webhook(reg.json.secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>) as any;
  t.equal(payload.data.runId, runId);
  await second.server.close();

  const third = await startTriggerServer(t, options);
  await third.settle();
  t.equal(receiver.received.length, 1, 'never twice');
});
