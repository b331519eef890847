// SSRF guard: private and loopback webhook endpoints are refused at registration and at delivery unless configuration allows.
import t from 'tap';
import { configFromEnv, DEFAULT_CONFIG } from '../../../runtime/config.js';
import { newId } from '../../../runtime/ids.js';
import { sealSecret, sealedSecretAad } from '../../../runtime/vault/sealed-secret.js';
import { mintSigningSecret } from '../../../runtime/webhooks/standard-webhooks.js';
import { startWebhookWorld } from './webhook-fixture.js';

t.test('the flag: off by default, SWITCHYARD_WEBHOOKS_ALLOW_PRIVATE=1 turns it on', async (t) => {
  t.equal(DEFAULT_CONFIG.webhooksAllowPrivateNetworks, false);
  t.equal(configFromEnv({}).webhooksAllowPrivateNetworks, false);
  t.equal(configFromEnv({ SWITCHYARD_WEBHOOKS_ALLOW_PRIVATE: '1' }).webhooksAllowPrivateNetworks, true);
});

t.test('registration refuses private, loopback, link-local and localhost addresses by default', async (t) => {
  const w = await startWebhookWorld(t, { allowPrivate: false });
  for (const url of [
    `${w.receiver.baseUrl}/hooks`,
    'http://localhost:9/hooks',
    'http://[::1]:9/hooks',
    'http://10.1.2.3/hooks',
    'http://192.168.0.10/hooks',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0:9/',
    'http://[::ffff:127.0.0.1]/',
    'http://no-such-host.invalid/hooks',
  ]) {
    const answer = await w.register('ada', { url });
    t.equal(answer.status, 400, url);
    t.equal(answer.json.error.details.issues[0].path, 'url');
  }
  const publicIp = await w.register('ada', { url: 'https://93.184.216.34/hooks' });
  t.equal(publicIp.status, 201, 'a public address is fine');
});

t.test('delivery re-checks the address it dials: an endpoint that became private is refused, not retried, never contacted', async (t) => {
  const w = await startWebhookWorld(t, { allowPrivate: false });
  const { store, services } = w.server.service;
  const orgId = (await store.repos.tenancy.domain(w.refs.sales!))!.orgId;
  // As if registered while allowed, or its name re-pointed at a private address since.
  const id = newId();
  await store.writer.submit(async (tx) =>
    (await tx.repos.webhooks.insertEndpoint({
      id,
      orgId,
      url: `${w.receiver.baseUrl}/hooks`,
      secretSealed: sealSecret(services.keyRing, mintSigningSecret(), sealedSecretAad.webhookEndpoint(orgId, id)),
      events: ['trigger.run.completed'],
      active: true,
      createdBy: null,
      createdAt: w.clock.now(),
    })),
  );
  await w.fire('empty');
  await w.settle();
  t.equal(w.receiver.received.length, 0, 'nothing reached the loopback receiver');
  const log = (await w.deliveries('ada', id)).json.deliveries[0];
  t.match(log, { status: 'failed', attempts: 1, lastStatus: null, lastError: 'refused_destination', nextAttemptAt: null });
  w.clock.advance(24 * 3_600_000);
  await w.settle();
  t.equal((await w.deliveries('ada', id)).json.deliveries[0].attempts, 1, 'no retry');
});
