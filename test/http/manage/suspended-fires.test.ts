// A suspended customer's fires stop (issue 13 item 6): schedule slots pass without firing, inbound events answer 404; resume restores both.
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { call } from '../../helpers/http.js';
import { SIGNUP_SECRET, startTriggerServer } from '../triggers-admin/trigger-fixture.js';

const HOUR = 3_600_000;

t.test('schedule ticks of a suspended organization pass without a firing, and the next slot stays armed', async (t) => {
  const f = await startTriggerServer(t);
  const created = await f.create('ada', { type: 'schedule', domainId: f.refs.sales, name: 'Hourly', cron: '0 * * * *', input: { id: 'c-1' }, subscribers: [f.refs.enrich] });
  t.equal(created.status, 201);
  const id = created.json.trigger.id;
  const { repos } = f.server.service.store;
  (await repos.management.setSuspended(f.refs.acme!, f.clock.now()));
  f.clock.advance(HOUR);
  await f.settle();
  t.equal((await repos.triggerRuns.countOfTrigger(id)), 0, 'no firing while suspended');
  t.equal(await f.server.service.services.scheduleTicks.nextRunAt(id), Date.UTC(2026, 10, 22, 14), 'the next slot is armed');
  (await repos.management.setSuspended(f.refs.acme!, null));
  f.clock.advance(HOUR);
  await f.settle();
  t.equal((await repos.triggerRuns.countOfTrigger(id)), 1, 'fires again once resumed');
});

t.test('inbound events for a suspended organization answer like an inactive trigger and record nothing', async (t) => {
  const f = await startTriggerServer(t);
  const { repos } = f.server.service.store;
  let n = 0;
  const deliver = () => {
    const body = JSON.stringify({ type: 'contact.created', data: { id: 'c-1', contact: { id: 'c-1', tier: 'enterprise', seats: 500 } } });
    const id = `msg_${++n}`;
    const at = new Date(f.clock.now());
    const signature = new Webhook(SIGNUP_SECRET).sign(id, at, body);
    return call(`${f.server.url}/api/v1/events/${f.refs.signup}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
      body,
    });
  };
  (await repos.management.setSuspended(f.refs.acme!, f.clock.now()));
  const refused = await deliver();
  t.equal(refused.status, 404);
  t.equal((await repos.eventDeliveries.recent(f.refs.signup!, 5)).length, 0, 'nothing recorded');
  (await repos.management.setSuspended(f.refs.acme!, null));
  const accepted = await deliver();
  t.equal(accepted.status, 202, 'accepted again');
  t.equal((await repos.eventDeliveries.recent(f.refs.signup!, 5)).length, 1);
});
