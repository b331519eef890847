// Agent authoring: create, read, PATCH setup, bounds, strict bodies, 403 vs 404 (SPEC "Authoring", "Limits", "Versioning").
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { startAuthoring } from './authoring-fixture.js';

t.test('create answers 201 { id, domainId, name, description, kind: "agent" }; the agent is not published', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const created = await ada.post('/automations', {
    domainId: world.refs.sales,
    name: '  Pricing helper  ',
    description: 'Answers pricing questions',
    initialSetup: { procedure: 'Search with #knowledge.search.', approvalTools: [] },
  });
  t.equal(created.status, 201);
  t.match(created.json.id, /^[0-9a-f-]{36}$/);
  t.same(created.json, { id: created.json.id, domainId: world.refs.sales, name: 'Pricing helper', description: 'Answers pricing questions', kind: 'agent' });
  const read = await ada.get(`/automations/${created.json.id}`);
  t.equal(read.status, 200);
  t.equal(read.json.published, null, 'not published');
  t.equal(read.json.hasUnpublishedChanges, true);
  t.same(read.json.setup, { principles: '', procedure: 'Search with #knowledge.search.', model: 'builtin:procedure', approvalTools: [] });
  t.equal((await world.server.service.store.repos.automations.automation(created.json.id))!.publishedRevision, null);
});

t.test('create bounds: name 1–120 (trimmed), description at most 2,000, setup bounds', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const domainId = world.refs.sales;
  t.equal((await ada.post('/automations', { domainId, name: 'x'.repeat(120) })).status, 201, 'name of 120');
  t.equal((await ada.post('/automations', { domainId, name: 'x'.repeat(121) })).status, 400, 'name of 121');
  t.equal((await ada.post('/automations', { domainId, name: '   ' })).status, 400, 'blank name');
  t.equal((await ada.post('/automations', { domainId })).status, 400, 'name required');
  t.equal((await ada.post('/automations', { domainId, name: 'a', description: 'd'.repeat(2000) })).status, 201);
  t.equal((await ada.post('/automations', { domainId, name: 'a', description: 'd'.repeat(2001) })).status, 400);
  t.equal((await ada.post('/automations', { domainId: 'not-a-uuid', name: 'a' })).status, 400);
  t.equal((await ada.post('/automations', { domainId, name: 'a', initialSetup: { procedure: 'p'.repeat(200_001) } })).status, 400);
  t.equal((await ada.post('/automations', { domainId, name: 'a', initialSetup: { model: ' ' } })).status, 400);
});

t.test('create is strict and cannot make a Flow: kind "flow" and unknown fields are 400 VALIDATION', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const domainId = world.refs.sales;
  const flow = await ada.post('/automations', { domainId, name: 'A flow', kind: 'flow' });
  t.equal(flow.status, 400);
  t.equal(flow.json.error.code, 'VALIDATION');
  const unknown = await ada.post('/automations', { domainId, name: 'a', steps: [] });
  t.equal(unknown.status, 400);
  t.match(JSON.stringify(unknown.json.error.details), /steps/, 'names the unknown key');
  t.equal((await ada.post('/automations', { domainId, name: 'a', initialSetup: { temperature: 1 } })).status, 400, 'initialSetup is strict too');
  t.equal((await ada.post('/automations', { domainId, name: 'An agent', kind: 'agent' })).status, 201, 'kind "agent" is accepted');
  const before = (await world.server.service.store.repos.automations.automationsOfDomain(domainId)).filter((a) => a.kind === 'flow').length;
  t.equal(before, 1, 'only the manifest\'s flow exists');
});

t.test('create needs edit_automation in the domain: operator or non-member is 403, another organization\'s domain 404', async (t) => {
  const world = await startAuthoring(t);
  const body = { domainId: world.refs.sales, name: 'a' };
  const bob = await world.as(world.refs['bob-key']).post('/automations', body);
  t.equal(bob.status, 403, 'operator');
  t.equal(bob.json.error.code, 'FORBIDDEN');
  t.equal((await world.as(world.refs['eve-key']).post('/automations', body)).status, 403, 'organization admin without domain role');
  await world.setDomainRole('sales', 'bob', 'editor');
  t.equal((await world.as(world.refs['bob-key']).post('/automations', body)).status, 201, 'editor may (role read now)');
  const gina = await world.as(world.refs['gina-key']).post('/automations', body);
  t.equal(gina.status, 404, 'another organization\'s domain');
  const unknown = await world.as(world.refs['ada-key']).post('/automations', { ...body, domainId: randomUUID() });
  t.equal(unknown.status, 404);
  t.same(gina.json, unknown.json, 'uniform');
});

t.test('PATCH setup: omitted fields unchanged, no revision, published pointer unmoved', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const id = world.refs.lookup;
  const { automations } = world.server.service.store.repos;
  const before = await ada.get(`/automations/${id}`);
  t.equal(before.json.published.revision, 1, 'the manifest published revision 1');
  t.equal(before.json.hasUnpublishedChanges, false);

  const patched = await ada.patch(`/automations/${id}/setup`, { principles: 'Be terse.' });
  t.equal(patched.status, 200);
  t.same(patched.json.setup, { ...before.json.setup, principles: 'Be terse.' });
  const after = await ada.get(`/automations/${id}`);
  t.same(after.json.published, before.json.published, 'published revision unchanged');
  t.equal(after.json.hasUnpublishedChanges, true);
  t.equal((await automations.latestAgentRevision(id))!.revision, 1, 'no revision created');
  t.equal((await automations.automation(id))!.publishedRevision, 1);

  const tools = await ada.patch(`/automations/${id}/setup`, { approvalTools: ['crm.update_contact', 'crm.update_contact'] });
  t.same(tools.json.setup.approvalTools, ['crm.update_contact'], 'duplicates collapse');
  t.equal(tools.json.setup.principles, 'Be terse.', 'earlier patch kept');
  const empty = await ada.patch(`/automations/${id}/setup`, {});
  t.equal(empty.status, 200, 'an empty patch is valid and changes nothing');
  t.same(empty.json.setup, tools.json.setup);
});

t.test('PATCH setup bounds and strictness', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const path = `/automations/${world.refs.drafty}/setup`;
  const cases: Array<[string, unknown, number]> = [
    ['principles 100,000', { principles: 'p'.repeat(100_000) }, 200],
    ['principles 100,001', { principles: 'p'.repeat(100_001) }, 400],
    ['procedure 200,000', { procedure: 'p'.repeat(200_000) }, 200],
    ['procedure 200,001', { procedure: 'p'.repeat(200_001) }, 400],
    ['model trimmed', { model: '  builtin:procedure  ' }, 200],
    ['model blank', { model: '   ' }, 400],
    ['approvalTools 50', { approvalTools: Array.from({ length: 50 }, (_, i) => `crm.t${i}`) }, 200],
    ['approvalTools 51', { approvalTools: Array.from({ length: 51 }, (_, i) => `crm.t${i}`) }, 400],
    ['approval tool of 100', { approvalTools: ['x'.repeat(100)] }, 200],
    ['approval tool of 101', { approvalTools: ['x'.repeat(101)] }, 400],
    ['empty approval tool', { approvalTools: [''] }, 400],
    ['unknown field', { name: 'renamed' }, 400],
    ['wrong type', { procedure: 42 }, 400],
  ];
  for (const [label, body, status] of cases) {
    const answer = await ada.patch(path, body);
    t.equal(answer.status, status, label);
    if (status === 400) t.equal(answer.json.error.code, 'VALIDATION', label);
  }
  t.equal((await ada.get(`/automations/${world.refs.drafty}`)).json.setup.model, 'builtin:procedure', 'stored trimmed');
  // 300,000 characters JSON-escaped as \u0007 (6 bytes each) are 1.8 MB: more than the default body limit.
  const widest = await ada.patch(path, { principles: '\u0007'.repeat(100_000), procedure: '\u0007'.repeat(200_000) });
  t.equal(widest.status, 200, 'a full Setup of the widest JSON characters fits the route body limit');
});

t.test('automation routes: another organization\'s or an unknown id is 404, a visible one without edit_automation 403', async (t) => {
  const world = await startAuthoring(t);
  const id = world.refs.lookup;
  const bob = world.as(world.refs['bob-key']);
  const gina = world.as(world.refs['gina-key']);
  const ada = world.as(world.refs['ada-key']);
  const routes: Array<[string, (c: typeof ada, id: string) => Promise<any>]> = [
    ['GET', (c, x) => c.get(`/automations/${x}`)],
    ['PATCH setup', (c, x) => c.patch(`/automations/${x}/setup`, { principles: 'x' })],
    ['GET verify', (c, x) => c.get(`/automations/${x}/verify`)],
    ['POST publish', (c, x) => c.post(`/automations/${x}/publish`, {})],
    ['PUT selection', (c, x) => c.put(`/automations/${x}/knowledge-selection`, { mode: 'none' })],
  ];
  for (const [label, send] of routes) {
    const forbidden = await send(bob, id);
    t.equal(forbidden.status, 403, `${label}: operator`);
    t.equal(forbidden.json.error.code, 'FORBIDDEN');
    const foreign = await send(gina, id);
    t.equal(foreign.status, 404, `${label}: other organization`);
    const unknown = await send(ada, randomUUID());
    t.same(foreign.json, unknown.json, `${label}: uniform with an unknown id`);
    t.equal((await send(ada, 'not-a-uuid')).status, 404, `${label}: malformed id`);
  }
});

t.test('a Flow has no Setup: PATCH setup, verify and publish on a flow are 400', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const flow = world.refs.enrich;
  t.equal((await ada.patch(`/automations/${flow}/setup`, { principles: 'x' })).status, 400);
  t.equal((await ada.get(`/automations/${flow}/verify`)).status, 400);
  t.equal((await ada.post(`/automations/${flow}/publish`)).status, 400);
  const read = await ada.get(`/automations/${flow}`);
  t.equal(read.json.kind, 'flow');
  t.equal(read.json.setup, null);
});
