// Trigger management routes: list (paged, visible domains), read with subscribers, update, pause/resume, delete, subscribers.
import t from 'tap';
import { SCHEDULE_TICK } from '../../../runtime/triggers/schedule-ticks.js';
import { nextRunAfter } from '../../../runtime/triggers/schedule-next.js';
import { call } from '../../helpers/http.js';
import { allPages, startManageServer, UNKNOWN } from './manage-fixture.js';

t.test('list: only triggers of the caller\'s domains, filters, strict query, cursor pages cover the list once', async (t) => {
  const f = await startManageServer(t);
  const whole = await f.req('GET', '/api/v1/triggers?limit=200', { user: 'ada' });
  t.equal(whole.status, 200);
  const names = whole.json.triggers.map((x: any) => x.name);
  t.ok(names.includes('Nightly enrich') && names.includes('Big signup'), 'sales triggers listed');
  t.equal(whole.json.nextCursor, null);
  t.notOk(whole.text.includes('whsec_'), 'no secret in the list');

  const paged = await allPages((cursor) => f.req('GET', `/api/v1/triggers?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { user: 'ada' }), 'triggers');
  t.same(paged.items.map((x) => x.id), whole.json.triggers.map((x: any) => x.id), 'pages concatenate to the whole list, in order, once');
  t.equal(paged.pages, Math.ceil(whole.json.triggers.length / 3));

  const schedules = await f.req('GET', '/api/v1/triggers?type=schedule', { key: f.key('bob-key') });
  t.same(schedules.json.triggers.map((x: any) => x.name), ['Nightly enrich'], 'type filter, with an sv_ key');

  const eve = await f.req('GET', '/api/v1/triggers', { user: 'eve' });
  t.same(eve.json.triggers, [], 'an organization admin with no domain role sees no domain\'s triggers');
  const gina = await f.req('GET', '/api/v1/triggers', { user: 'gina' });
  t.ok(gina.json.triggers.length > 0);
  t.ok(gina.json.triggers.every((x: any) => x.domainId === f.refs.ops), 'another organization sees only its own');

  for (const query of ['bogus=1', 'limit=0', 'limit=201', 'type=webhook', 'cursor=not-ours', 'domainId=sales']) {
    const bad = await f.req('GET', `/api/v1/triggers?${query}`, { user: 'ada' });
    t.equal(bad.status, 400, query);
    t.equal(bad.json.error.code, 'VALIDATION');
  }
  const anonymous = await f.req('GET', '/api/v1/triggers', {});
  t.equal(anonymous.status, 404, 'no credential: the key routes\' uniform 404');
  const badCookie = await call(`${f.server.url}/api/v1/triggers`, { headers: { cookie: 'service_session=svs_nonsense' } });
  t.equal(badCookie.status, 401, 'a cookie that names no session: sign in first');
  t.equal(badCookie.json.error.code, 'UNAUTHORIZED');
});

t.test('read: subscribers in firing order; 403 outside the domain, uniform 404 across organizations and for garbage ids', async (t) => {
  const f = await startManageServer(t);
  const nightly = f.refs.nightly!;
  const read = await f.req('GET', `/api/v1/triggers/${nightly}`, { user: 'bob' });
  t.equal(read.status, 200, 'an operator reads');
  t.match(read.json.trigger, { id: nightly, type: 'schedule', active: true, config: { cron: '0 2 * * *', timezone: 'Europe/Paris', input: { id: 'c-1' } } });
  t.type(read.json.trigger.config.nextRunAt, 'string');
  t.same(read.json.subscribers, [{ automationId: f.refs.enrich, kind: 'flow', name: read.json.subscribers[0].name, published: true, archived: false }]);

  const signup = await f.req('GET', `/api/v1/triggers/${f.refs.signup}`, { key: f.key('vic-key') });
  t.equal(signup.status, 200, 'a viewer reads, with a key');
  t.same(signup.json.subscribers.map((s: any) => s.automationId), [f.refs.enrich, f.refs.upgrader]);
  t.equal(signup.json.trigger.config.hasEndpointSecret, true);
  t.notOk(signup.text.includes('whsec_'));

  const eve = await f.req('GET', `/api/v1/triggers/${nightly}`, { user: 'eve' });
  t.equal(eve.status, 403);
  t.equal(eve.json.error.code, 'FORBIDDEN');

  const foreign = await f.req('GET', `/api/v1/triggers/${nightly}`, { user: 'gina' });
  const unknown = await f.req('GET', `/api/v1/triggers/${UNKNOWN}`, { user: 'ada' });
  const garbage = await f.req('GET', '/api/v1/triggers/not-a-uuid', { user: 'ada' });
  const badKey = await f.req('GET', `/api/v1/triggers/${nightly}`, { key: 'sv_nonsense' });
  for (const answer of [foreign, unknown, garbage, badKey]) {
    t.equal(answer.status, 404);
    t.equal(answer.text, unknown.text, 'byte-identical 404');
  }
});

t.test('update: name, cron and timezone re-arm the tick; input; eventFilter validated; strict body; type fit; editors only', async (t) => {
  const f = await startManageServer(t);
  const nightly = f.refs.nightly!;
  const timers = f.server.service.store.repos.timers;
  const patch = (json: unknown, user = 'ada') => f.req('PATCH', `/api/v1/triggers/${nightly}`, { user }, json);

  const changed = await patch({ name: ' Hourly enrich ', cron: '15 * * * *', timezone: null, input: { id: 'c-2' } });
  t.equal(changed.status, 200);
  t.match(changed.json.trigger, { name: 'Hourly enrich', config: { cron: '15 * * * *', timezone: null, input: { id: 'c-2' } } });
  const due = nextRunAfter({ cron: '15 * * * *', timezone: null }, f.clock.now())!;
  t.equal(changed.json.trigger.config.nextRunAt, new Date(due).toISOString());
  t.equal((await timers.pending(SCHEDULE_TICK, nightly))!.dueAt, due, 'the durable tick moved to the new slot');

  // The tick fires with the new input on the new slot.
  f.clock.advance(due - f.clock.now());
  await f.settle();
  const runs = await f.req('GET', `/api/v1/triggers/${nightly}/runs`, { user: 'ada' });
  t.equal(runs.json.runs.length, 1, 'fired once on the edited slot');

  const byEditor = await patch({ name: 'By Ed' }, 'ed');
  t.equal(byEditor.status, 200, 'a domain editor may change it');
  const byOperator = await patch({ name: 'By Bob' }, 'bob');
  t.equal(byOperator.status, 403);
  const byGina = await patch({ name: 'By Gina' }, 'gina');
  t.equal(byGina.status, 404);

  for (const body of [{}, { surprise: 1 }, { cron: 'not a cron' }, { timezone: 'Mars/Olympus' }, { eventFilter: null }, { name: '' }, { input: [] }]) {
    const bad = await patch(body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.equal(bad.json.error.code, 'VALIDATION');
  }
  const onApi = await f.req('PATCH', `/api/v1/triggers/${f.refs['new-lead']}`, { user: 'ada' }, { cron: '0 * * * *' });
  t.equal(onApi.status, 400);
  t.equal(onApi.json.error.details.issues[0].path, 'cron');

  const signup = `/api/v1/triggers/${f.refs.signup}`;
  const badFilter = await f.req('PATCH', signup, { user: 'ada' }, { eventFilter: { field: 'contact.nowhere', operator: 'equals', value: 1 } });
  t.equal(badFilter.status, 400);
  t.equal(badFilter.json.error.details.issues[0].path, 'eventFilter.field');
  const filter = { field: 'contact.seats', operator: '<', value: 10 };
  const goodFilter = await f.req('PATCH', signup, { user: 'ada' }, { eventFilter: filter });
  t.same(goodFilter.json.trigger.config.eventFilter, filter);
  const cleared = await f.req('PATCH', signup, { user: 'ada' }, { eventFilter: null });
  t.equal(cleared.json.trigger.config.eventFilter, null, 'null removes the filter');
  t.equal((await f.server.service.store.repos.triggers.trigger(f.refs.signup!))!.endpointSecretSealed !== null, true, 'the endpoint secret is kept');
});

t.test('pause and resume: a paused schedule has no tick and never fires; a paused API trigger is not fireable; idempotent', async (t) => {
  const f = await startManageServer(t);
  const nightly = f.refs.nightly!;
  const timers = f.server.service.store.repos.timers;
  const paused = await f.req('POST', `/api/v1/triggers/${nightly}/pause`, { user: 'ada' });
  t.equal(paused.status, 200);
  t.equal(paused.json.trigger.active, false);
  t.equal(paused.json.trigger.config.nextRunAt, null);
  t.equal((await timers.pending(SCHEDULE_TICK, nightly)), undefined, 'tick removed');
  t.equal((await f.req('POST', `/api/v1/triggers/${nightly}/pause`, { user: 'ada' }, {})).status, 200, 'pausing twice is fine ({} body)');

  f.clock.advance(2 * 86_400_000);
  await f.settle();
  t.equal((await f.req('GET', `/api/v1/triggers/${nightly}/runs`, { user: 'ada' })).json.runs.length, 0, 'no firing while paused');

  const resumed = await f.req('POST', `/api/v1/triggers/${nightly}/resume`, { user: 'ada' });
  t.equal(resumed.json.trigger.active, true);
  const due = nextRunAfter({ cron: '0 2 * * *', timezone: 'Europe/Paris' }, f.clock.now())!;
  t.equal((await timers.pending(SCHEDULE_TICK, nightly))!.dueAt, due, 'armed for the next slot from now (missed slots not replayed)');

  const fire = () => f.req('POST', '/api/v1/triggers/fire', { key: f.key('bob-key') }, { triggerId: f.refs['new-lead'], input: { id: 'c-1' } });
  t.equal((await f.req('POST', `/api/v1/triggers/${f.refs['new-lead']}/pause`, { key: f.key('ada-key') })).status, 200, 'with an sv_ key');
  t.equal((await fire()).status, 404, 'a paused API trigger is not fireable');
  await f.req('POST', `/api/v1/triggers/${f.refs['new-lead']}/resume`, { user: 'ada' });
  t.equal((await fire()).status, 202);

  t.equal((await f.req('POST', `/api/v1/triggers/${nightly}/pause`, { user: 'ada' }, { now: true })).status, 400, 'strict: the body must be empty');
  t.equal((await f.req('POST', `/api/v1/triggers/${nightly}/pause`, { user: 'bob' })).status, 403);
  t.equal((await f.req('POST', `/api/v1/triggers/${nightly}/pause`, { user: 'gina' })).status, 404);
  await f.settle();
});

t.test('delete: gone with its tick and history; editors only; uniform 404 after', async (t) => {
  const f = await startManageServer(t);
  const nightly = f.refs.nightly!;
  t.equal((await f.req('DELETE', `/api/v1/triggers/${nightly}`, { key: f.key('vic-key') })).status, 403, 'a viewer cannot');
  t.equal((await f.req('DELETE', `/api/v1/triggers/${nightly}`, { user: 'gina' })).status, 404);
  const deleted = await f.req('DELETE', `/api/v1/triggers/${nightly}`, { user: 'ada' });
  t.equal(deleted.status, 204);
  t.equal((await f.server.service.store.repos.timers.pending(SCHEDULE_TICK, nightly)), undefined);
  t.equal((await f.server.service.store.repos.triggers.subscribers(nightly)).length, 0);
  t.equal((await f.req('GET', `/api/v1/triggers/${nightly}`, { user: 'ada' })).status, 404);
  t.equal((await f.req('DELETE', `/api/v1/triggers/${nightly}`, { user: 'ada' })).status, 404);
  f.clock.advance(2 * 86_400_000);
  await f.settle();

  // A trigger with firings in flight: its history goes, the sessions it started stay readable.
  const fired = await f.req('POST', '/api/v1/triggers/fire', { key: f.key('bob-key') }, { triggerId: f.refs['new-lead'], input: { id: 'c-1' } });
  t.equal(fired.status, 202);
  t.equal((await f.req('DELETE', `/api/v1/triggers/${f.refs['new-lead']}`, { user: 'ed' })).status, 204, 'a domain editor deletes');
  await f.settle();
  const session = await f.req('GET', `/api/v1/agents/sessions/${fired.json.sessions[0].sessionId}`, { key: f.key('bob-key') });
  t.equal(session.status, 200, 'sessions started by the deleted trigger stay');
  t.equal(f.server.logs.filter((line) => /"level":(50|60)/.test(line)).length, 0, 'no error logged on the way');
});

t.test('subscribers: add appends (idempotent), same domain only, archived refused; remove; permissions', async (t) => {
  const f = await startManageServer(t);
  const path = (automation: string) => `/api/v1/triggers/${f.refs.empty}/subscribers/${automation}`;
  const added = await f.req('PUT', path(f.refs.lookup!), { user: 'ed' });
  t.equal(added.status, 200);
  t.same(added.json.trigger.subscribers, [f.refs.lookup]);
  await f.req('PUT', path(f.refs.enrich!), { user: 'ed' });
  const again = await f.req('PUT', path(f.refs.lookup!), { user: 'ed' }, {});
  t.same(again.json.trigger.subscribers, [f.refs.lookup, f.refs.enrich], 'idempotent, firing order kept');
  t.same(again.json.subscribers.map((s: any) => s.kind), ['agent', 'flow']);

  const fired = await f.req('POST', '/api/v1/triggers/fire', { key: f.key('bob-key') }, { triggerId: f.refs.empty, input: { id: 'c-1' } });
  t.equal(fired.json.sessions.length, 2, 'the fire path sees the new subscribers');

  const otherDomain = await f.req('PUT', path(f.refs.helper!), { user: 'ada' });
  t.equal(otherDomain.status, 400);
  t.equal((await f.req('PUT', path(f.refs['globex-agent']!), { user: 'ada' })).status, 404, 'another organization\'s automation');
  t.equal((await f.req('PUT', path(UNKNOWN), { user: 'ada' })).status, 404);
  t.equal((await f.req('PUT', path(f.refs.lookup!), { user: 'bob' })).status, 403);
  t.equal((await f.req('PUT', path(f.refs.lookup!), { user: 'ada' }, { position: 1 })).status, 400, 'strict body');

  await f.req('POST', `/api/v1/authoring/automations/${f.refs.drafty}/archive`, { user: 'ada' });
  const archived = await f.req('PUT', path(f.refs.drafty!), { user: 'ada' });
  t.equal(archived.status, 409);
  t.equal(archived.json.error.details.reason, 'automation_archived');
  const created = await f.create('ada', { type: 'api', domainId: f.refs.sales, name: 'With archived', subscribers: [f.refs.drafty] });
  t.equal(created.status, 409, 'creating a trigger with an archived subscriber is refused alike');
  t.equal(created.json.error.details.reason, 'automation_archived');

  const removed = await f.req('DELETE', path(f.refs.lookup!), { user: 'ada' });
  t.same(removed.json.trigger.subscribers, [f.refs.enrich]);
  t.equal((await f.req('DELETE', path(f.refs.lookup!), { user: 'ada' })).status, 200, 'removing again is idempotent');
  t.equal((await f.req('DELETE', path(f.refs['globex-agent']!), { user: 'ada' })).status, 404);
  await f.settle();
});
