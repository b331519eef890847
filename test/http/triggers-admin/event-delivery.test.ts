// POST /api/v1/events/:triggerId: Standard Webhooks verification (injected clock), webhook-id dedupe, filter, fan-out without caller.
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { call, type Answer } from '../../helpers/http.js';
import { SIGNUP_SECRET, startTriggerServer, type TriggerServer } from './trigger-fixture.js';

let counter = 0;

/** Signs `payload` the way a provider does, with the `standardwebhooks` package. */
function deliver(f: TriggerServer, triggerId: string, payload: unknown, options: { secret?: string; id?: string; at?: number; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const body = options.body ?? JSON.stringify(payload);
  const id = options.id ?? `msg_${++counter}`;
  const at = new Date(options.at ?? f.clock.now());
  const signature = new Webhook(options.secret ?? SIGNUP_SECRET).sign(id, at, body);
  return call(`${f.server.url}/api/v1/events/${triggerId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature, ...options.headers },
    body,
  });
}

const signup = (seats: number) => ({ type: 'contact.created', timestamp: '2026-11-22T11:59:00Z', data: { id: 'c-1', contact: { id: 'c-1', email: 'big@corp.test', tier: 'enterprise', seats } } });

t.test('a verified delivery that passes the filter fans out like a fire: source event, no caller, caller-required refused', async (t) => {
  const f = await startTriggerServer(t);
  const answer = await deliver(f, f.refs.signup!, signup(120));
  t.equal(answer.status, 202);
  t.equal(answer.json.status, 'fired');
  const { repos } = f.server.service.store;
  const run = (await repos.triggerRuns.run(answer.json.runId))!;
  t.match(run, { triggerId: f.refs.signup, source: 'event', firedBy: null, outcome: 'partial' });
  const [enrich, upgrader] = (await repos.triggerRuns.resultsOf([run.id]));
  t.match(enrich, { automationId: f.refs.enrich, status: 'started' });
  t.match(upgrader, { automationId: f.refs.upgrader, status: 'failed', code: 'CALLER_CREDENTIALS_REQUIRED' });
  t.same(answer.json.sessions, [{ automationId: f.refs.enrich, sessionId: enrich!.sessionId }]);
  // The run row is the delivery's one accept row; its session is written next (as any read route does first).
  await f.server.service.services.sessions.materializer.catchUp();
  t.equal((await repos.sessions.session(enrich!.sessionId!))!.origin, 'event');
  await f.settle();
  t.equal(f.upstream.received.filter((r) => r.pathname === '/contacts/c-1').length, 1, 'the flow ran on the event payload');
  t.match((await repos.eventDeliveries.recent(f.refs.signup!, 5))[0], { status: 'fired', runId: run.id, reason: null });
});

t.test('filter miss and another event type: 202 with a recorded skip, nothing fired', async (t) => {
  const f = await startTriggerServer(t);
  const { repos } = f.server.service.store;
  const miss = await deliver(f, f.refs.signup!, signup(10), { id: 'small-one' });
  t.equal(miss.status, 202);
  t.same(miss.json, { status: 'skipped', reason: 'FILTER_MISS' });
  const noSeats = await deliver(f, f.refs.signup!, { type: 'contact.created', data: { contact: { id: 'c-2' } } });
  t.same(noSeats.json, { status: 'skipped', reason: 'FILTER_MISS' }, 'a missing field never matches');
  const other = await deliver(f, f.refs.signup!, { ...signup(500), type: 'contact.deleted' });
  t.same(other.json, { status: 'skipped', reason: 'EVENT_TYPE_MISMATCH' });
  t.equal((await repos.triggerRuns.countOfTrigger(f.refs.signup!)), 0);
  t.match((await repos.eventDeliveries.delivery(f.refs.signup!, 'small-one')), { status: 'skipped', reason: 'FILTER_MISS', runId: null });
  t.equal((await repos.eventDeliveries.recent(f.refs.signup!, 10)).length, 3);
});

t.test('dedupe by webhook-id: a redelivery answers the first result and never fires again, even concurrently', async (t) => {
  const f = await startTriggerServer(t);
  const { repos } = f.server.service.store;
  const first = await deliver(f, f.refs.signup!, signup(99), { id: 'evt-1' });
  const again = await deliver(f, f.refs.signup!, signup(99), { id: 'evt-1' });
  t.equal(again.status, 202);
  t.same(again.json, { status: 'fired', runId: first.json.runId, duplicate: true });
  const racing = await Promise.all(Array.from({ length: 8 }, () => deliver(f, f.refs.signup!, signup(77), { id: 'evt-2' })));
  t.ok(racing.every((a) => a.status === 202));
  const runIds = new Set(racing.map((a) => a.json.runId));
  t.equal(runIds.size, 1, 'every answer names the one run');
  t.equal(racing.filter((a) => a.json.duplicate !== true).length, 1, 'one original');
  t.equal((await repos.triggerRuns.countOfTrigger(f.refs.signup!)), 2, 'two messages, two firings');
  const skipped = await deliver(f, f.refs.signup!, signup(1), { id: 'evt-3' });
  t.same((await deliver(f, f.refs.signup!, signup(1000), { id: 'evt-3' })).json, { status: 'skipped', reason: 'FILTER_MISS', duplicate: true }, 'a skip replays as a skip');
  t.equal(skipped.json.status, 'skipped');
  await f.settle();
});

t.test('401 for a missing, wrong or stale signature; nothing recorded', async (t) => {
  const f = await startTriggerServer(t);
  const { repos } = f.server.service.store;
  const url = `${f.server.url}/api/v1/events/${f.refs.signup}`;
  const cases: Array<[string, Promise<Answer>]> = [
    ['no headers', call(url, { method: 'POST', json: signup(100) })],
    ['another secret', deliver(f, f.refs.signup!, signup(100), { secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD' })],
    ['ten minutes old', deliver(f, f.refs.signup!, signup(100), { at: f.clock.now() - 10 * 60_000 })],
    ['ten minutes ahead', deliver(f, f.refs.signup!, signup(100), { at: f.clock.now() + 10 * 60_000 })],
    ['not a v1 signature', deliver(f, f.refs.signup!, signup(100), { headers: { 'webhook-signature': 'v2,abc' } })],
    ['a body changed after signing', (async () => {
      const id = 'tamper';
      const at = new Date(f.clock.now());
      const signature = new Webhook(SIGNUP_SECRET).sign(id, at, JSON.stringify(signup(1)));
      return call(url, { method: 'POST', headers: { 'webhook-id': id, 'webhook-timestamp': String(at.getTime() / 1000), 'webhook-signature': signature }, json: signup(1000) });
    })()],
  ];
  for (const [name, pending] of cases) {
    const answer = await pending;
    t.equal(answer.status, 401, name);
    t.equal(answer.json.error.code, 'UNAUTHORIZED');
  }
  t.equal((await repos.eventDeliveries.recent(f.refs.signup!, 10)).length, 0);
  t.equal((await repos.triggerRuns.countOfTrigger(f.refs.signup!)), 0);

  // The tolerance is measured on the injected clock: a delivery signed "now" is accepted after the clock moves.
  f.clock.advance(30 * 24 * 3_600_000);
  t.equal((await deliver(f, f.refs.signup!, signup(100))).status, 202);
  await f.settle();
});

t.test('404 for anything but an active event trigger; 400 for a signed body that is not a JSON object', async (t) => {
  const f = await startTriggerServer(t);
  const unknown = await deliver(f, '01a20378-0000-7000-8000-000000000000', signup(100));
  t.equal(unknown.status, 404);
  t.equal((await deliver(f, 'not-a-uuid', signup(100))).status, 404);
  t.equal((await deliver(f, f.refs['new-lead']!, signup(100))).status, 404, 'an API trigger');
  const paused = await f.create('ada', { type: 'event', domainId: f.refs.sales, name: 'Off', sourceIntegrationId: 'crm', connectionId: f.refs['crm-conn'], eventType: 'contact.created', endpointSecret: SIGNUP_SECRET, active: false });
  t.equal((await deliver(f, paused.json.trigger.id, signup(100))).status, 404, 'a paused event trigger');
  const array = await deliver(f, f.refs.signup!, null, { body: '[1,2]' });
  t.equal(array.status, 400);
  t.equal((await deliver(f, f.refs.signup!, null, { body: '{not json' })).status, 400);
});

t.test('end to end: a console-created trigger with a minted secret; actor and occurredAt filters', async (t) => {
  const f = await startTriggerServer(t);
  const byActor = await f.create('ada', {
    type: 'event', domainId: f.refs.sales, name: 'Ops only', sourceIntegrationId: 'crm', connectionId: f.refs['crm-conn'],
    eventType: 'contact.created', eventFilter: { field: 'actor.email', operator: 'contains', value: '@ops.' }, subscribers: [f.refs.enrich],
  });
  const secret = byActor.json.endpointSecret as string;
  const id = byActor.json.trigger.id as string;
  t.equal(byActor.json.trigger.deliveryUrl, `${f.server.url}/api/v1/events/${id}`);
  const hit = await deliver(f, id, { ...signup(1), actor: { email: 'kim@ops.acme.test' } }, { secret });
  t.equal(hit.json.status, 'fired');
  const miss = await deliver(f, id, { ...signup(1), actor: { email: 'kim@sales.acme.test' } }, { secret });
  t.same(miss.json, { status: 'skipped', reason: 'FILTER_MISS' });
  t.equal((await deliver(f, id, signup(1), { secret: SIGNUP_SECRET })).status, 401, 'another trigger\'s secret does not open it');

  const recent = await f.create('ada', {
    type: 'event', domainId: f.refs.sales, name: 'Fresh only', sourceIntegrationId: 'crm', connectionId: f.refs['crm-conn'],
    eventType: 'contact.created', eventFilter: { field: 'occurredAt', operator: '>', value: '2026-11-22T00:00:00Z' },
  });
  const fresh = await deliver(f, recent.json.trigger.id, { ...signup(1), occurredAt: '2026-11-22T10:00:00Z' }, { secret: recent.json.endpointSecret });
  t.equal(fresh.json.status, 'fired');
  t.same(fresh.json.sessions, [], 'no subscribers: recorded, nothing started');
  const stale = await deliver(f, recent.json.trigger.id, { ...signup(1), occurredAt: '2026-11-21T10:00:00Z' }, { secret: recent.json.endpointSecret });
  t.equal(stale.json.status, 'skipped');
  const untimed = await deliver(f, recent.json.trigger.id, { type: 'contact.created', data: {} }, { secret: recent.json.endpointSecret });
  t.equal(untimed.json.status, 'fired', 'without occurredAt or timestamp the signed webhook-timestamp is the event time');
  await f.settle();
});
