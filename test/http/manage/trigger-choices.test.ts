// GET /api/v1/triggers/choices: the caller's domains (may they create triggers there) and the event sources POST /triggers accepts.
import t from 'tap';
import { startManageServer } from './manage-fixture.js';

const PATH = '/api/v1/triggers/choices';

t.test('an owner of two domains: both creatable, signed catalog events only, connected connections of her domains only', async (t) => {
  const f = await startManageServer(t);
  const answer = await f.req('GET', PATH, { user: 'ada' });
  t.equal(answer.status, 200, answer.text);
  t.same(answer.json.domains, [
    { domainId: f.refs.sales, name: 'Sales', canCreate: true },
    { domainId: f.refs.support, name: 'Support', canCreate: true },
  ]);
  t.equal(answer.json.eventTriggersEnabled, true);
  t.same(answer.json.eventSources.map((s: any) => s.integrationId), ['crm'], 'notes declares no events: not a source');
  const [crm] = answer.json.eventSources;
  t.same(crm.events.map((e: any) => e.type), ['contact.created'], 'the unsigned contact.deleted cannot be verified: not offered');
  t.same(crm.events[0].payloadPaths, ['contact.id', 'contact.email', 'contact.tier', 'contact.seats']);
  t.same(
    crm.connections,
    [
      { connectionId: f.refs['crm-conn'], domainId: f.refs.sales },
      { connectionId: f.refs['crm-support'], domainId: f.refs.support },
    ],
    'the unconnected crm connection is left out (creation would refuse it)',
  );
  t.notMatch(answer.text, /token/, 'no connection material');

  // The same answer with her sv_ key.
  const byKey = await f.req('GET', PATH, { key: f.key('ada-key') });
  t.same(byKey.json, answer.json);
});

t.test('a viewer sees the domain without canCreate; an editor only his domain\'s connections; another organization its own', async (t) => {
  const f = await startManageServer(t);
  const vic = await f.req('GET', PATH, { user: 'vic' });
  t.same(vic.json.domains, [{ domainId: f.refs.sales, name: 'Sales', canCreate: false }]);
  const ed = await f.req('GET', PATH, { user: 'ed' });
  t.same(ed.json.domains, [{ domainId: f.refs.sales, name: 'Sales', canCreate: true }]);
  t.same(ed.json.eventSources[0].connections, [{ connectionId: f.refs['crm-conn'], domainId: f.refs.sales }], 'not the support domain\'s connection');
  const gina = await f.req('GET', PATH, { user: 'gina' });
  t.same(gina.json.domains.map((d: any) => d.name), ['Ops']);
  t.same(gina.json.eventSources[0].connections.map((c: any) => c.connectionId), [f.refs['globex-crm']]);
  t.notMatch(gina.text, new RegExp(f.refs.sales!), 'nothing of Acme');
});

t.test('event triggers turned off for the organization: no sources; no credential or a bad key is the uniform 404', async (t) => {
  const f = await startManageServer(t);
  const { repos } = f.server.service.store;
  (await repos.tenancy.setRolloutFlags((await repos.tenancy.domain(f.refs.sales!))!.orgId, { eventTriggers: false }));
  const off = await f.req('GET', PATH, { user: 'ada' });
  t.equal(off.json.eventTriggersEnabled, false);
  t.same(off.json.eventSources, []);
  t.equal(off.json.domains.length, 2, 'schedule and api triggers still have their domains');
  t.equal((await f.req('GET', PATH, {})).status, 404, 'no credential at all: the uniform 404');
  const bad = await f.req('GET', PATH, { key: 'sv_nope' });
  t.equal(bad.status, 404);
  t.equal(bad.json.error.code, 'NOT_FOUND');
  t.equal((await f.req('GET', `${PATH}?x=1`, { user: 'ada' })).status, 200, 'a query is ignored (none is declared)');
});
