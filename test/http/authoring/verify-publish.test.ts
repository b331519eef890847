// GET …/verify and POST …/publish: findings with spans and proposals, warnings, 422, the revision counter (SPEC "Authoring").
import t from 'tap';
import { startAuthoring, type AuthoringWorld } from './authoring-fixture.js';

async function newAgent(world: AuthoringWorld, initialSetup: Record<string, unknown>) {
  const created = await world.as(world.refs['ada-key']).post('/automations', { domainId: world.refs.sales, name: 'Under test', initialSetup });
  return created.json.id as string;
}

t.test('verify reports a misspelled tool with its character span and the nearest real tool id, and changes nothing', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const procedure = 'First read the contact with #crm.get_contat, then change it with #crm.update_contact. Again: #crm.get_contat.';
  const id = await newAgent(world, { procedure });
  const before = JSON.stringify((await world.server.service.store.repos.automations.agentSetup(id)));

  const answer = await ada.get(`/automations/${id}/verify`);
  t.equal(answer.status, 200);
  const first = procedure.indexOf('#crm.get_contat');
  const second = procedure.lastIndexOf('#crm.get_contat');
  t.same(
    answer.json.findings.map((f: any) => ({ kind: f.kind, span: f.span, proposal: f.proposal })),
    [
      { kind: 'unknown_tool', span: { start: first, end: first + '#crm.get_contat'.length }, proposal: 'crm.get_contact' },
      { kind: 'unknown_tool', span: { start: second, end: second + '#crm.get_contat'.length }, proposal: 'crm.get_contact' },
    ],
  );
  t.equal(procedure.slice(answer.json.findings[0].span.start, answer.json.findings[0].span.end), '#crm.get_contat', 'the span covers the reference');
  t.match(answer.json.findings[0].detail, /crm\.get_contat/);
  t.same(answer.json.plannedBelt, [{ integrationId: 'crm', identityMode: 'service' }]);
  t.same(answer.json.warnings, []);
  t.equal(JSON.stringify((await world.server.service.store.repos.automations.agentSetup(id))), before, 'setup untouched');
  t.equal((await world.server.service.store.repos.automations.latestAgentRevision(id)), undefined, 'no revision');
});

t.test('publish with findings is 422 VALIDATION with details.findings [{ message, span }] and publishes nothing', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const procedure = 'Use #crm.get_contat.';
  const id = await newAgent(world, { procedure });
  const refused = await ada.post(`/automations/${id}/publish`, { changeNote: 'first try' });
  t.equal(refused.status, 422);
  t.equal(refused.json.error.code, 'VALIDATION');
  t.equal(refused.json.error.details.findings.length, 1);
  const [finding] = refused.json.error.details.findings;
  t.type(finding.message, 'string');
  t.same(finding.span, { start: 4, end: 4 + '#crm.get_contat'.length });
  const { automations } = world.server.service.store.repos;
  t.equal((await automations.latestAgentRevision(id)), undefined);
  t.equal((await automations.automation(id))!.publishedRevision, null);
});

t.test('revisions count 1, 2, 3; changeNote is trimmed; the published pointer follows; revisions are immutable', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const id = await newAgent(world, { procedure: 'Read with #crm.get_contact.' });
  const one = await ada.post(`/automations/${id}/publish`, { changeNote: '  first  ' });
  t.equal(one.status, 201);
  t.same(one.json, { revision: 1, belt: [{ integrationId: 'crm', identityMode: 'service' }] });
  const two = await ada.post(`/automations/${id}/publish`);
  t.equal(two.json.revision, 2, 'no body at all is fine');
  await ada.patch(`/automations/${id}/setup`, { procedure: 'Now search with #knowledge.search and read with #crm.get_contact.' });
  const three = await ada.post(`/automations/${id}/publish`, {});
  t.equal(three.json.revision, 3);
  t.same(three.json.belt, [{ integrationId: 'knowledge', identityMode: 'service' }, { integrationId: 'crm', identityMode: 'service' }], 'belt in order of first reference');

  const { automations } = world.server.service.store.repos;
  t.equal((await automations.agentRevision(id, 1))!.changeNote, 'first');
  t.equal((await automations.agentRevision(id, 2))!.changeNote, null);
  t.match((await automations.agentRevision(id, 1))!.setup, { procedure: /Read with #crm\.get_contact\./ }, 'revision 1 still holds the old procedure');
  const read = await ada.get(`/automations/${id}`);
  t.equal(read.json.published.revision, 3);
  t.equal(read.json.hasUnpublishedChanges, false);
});

t.test('publish body: changeNote at most 2,000 after trimming; unknown fields 400', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const id = await newAgent(world, { procedure: 'Read with #crm.get_contact.' });
  t.equal((await ada.post(`/automations/${id}/publish`, { changeNote: 'n'.repeat(2001) })).status, 400);
  t.equal((await ada.post(`/automations/${id}/publish`, { force: true })).status, 400);
  t.equal((await ada.post(`/automations/${id}/publish`, { changeNote: `  ${'n'.repeat(2000)}  ` })).status, 201, 'trimmed to 2,000');
});

t.test('warning empty_belt: a non-empty procedure without tool references; warnings never block publishing', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const id = await newAgent(world, { procedure: 'Just answer politely.' });
  const verify = await ada.get(`/automations/${id}/verify`);
  t.same(verify.json.findings, []);
  t.same(verify.json.plannedBelt, []);
  t.same(verify.json.warnings.map((w: any) => w.kind), ['empty_belt']);
  const published = await ada.post(`/automations/${id}/publish`);
  t.equal(published.status, 201);
  t.same(published.json, { revision: 1, belt: [] });

  const blank = await newAgent(world, { procedure: '   ' });
  t.same((await ada.get(`/automations/${blank}/verify`)).json.warnings, [], 'an empty procedure is not warned about');
});

t.test('warning unreferenced_tool_id: a visible tool wire id written without "#", with its span', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const procedure = 'Read with #crm.get_contact, then call crm.update_contact. Ignore e.g. and acme.com and crm.nothing.';
  const id = await newAgent(world, { procedure });
  const verify = await ada.get(`/automations/${id}/verify`);
  t.same(verify.json.findings, []);
  const start = procedure.indexOf('crm.update_contact');
  t.same(verify.json.warnings.map((w: any) => ({ kind: w.kind, span: w.span })), [
    { kind: 'unreferenced_tool_id', span: { start, end: start + 'crm.update_contact'.length } },
  ]);
  t.equal((await ada.post(`/automations/${id}/publish`)).status, 201, 'not blocking');
});

t.test('approvalTools must name real write tools of the belt', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const id = await newAgent(world, {
    procedure: 'Read with #crm.get_contact, then change with #crm.update_contact.',
    approvalTools: ['crm.update_contact', 'crm.get_contact', 'crm.update_contct', 'http.request'],
  });
  const verify = await ada.get(`/automations/${id}/verify`);
  t.same(
    verify.json.findings.map((f: any) => ({ kind: f.kind, span: f.span, proposal: f.proposal })),
    [
      { kind: 'readonly_approval_tool', span: null, proposal: null },
      { kind: 'unknown_approval_tool', span: null, proposal: 'crm.update_contact' },
      { kind: 'approval_tool_outside_belt', span: null, proposal: null },
    ],
  );
  t.equal((await ada.post(`/automations/${id}/publish`)).status, 422);
  await ada.patch(`/automations/${id}/setup`, { approvalTools: ['crm.update_contact'] });
  t.equal((await ada.post(`/automations/${id}/publish`)).status, 201);
});

t.test('an unusable model string is a finding', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const id = await newAgent(world, { procedure: 'Use #crm.get_contact.', model: 'gpt-4o' });
  const verify = await ada.get(`/automations/${id}/verify`);
  t.same(verify.json.findings.map((f: any) => f.kind), ['unknown_model']);
});

t.test('the belt takes identity modes from the bindings and equals the one manifest apply froze', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const id = world.refs.upgrader;
  const { automations } = world.server.service.store.repos;
  const manifestBelt = (await automations.agentRevision(id, 1))!.belt;
  const verify = await ada.get(`/automations/${id}/verify`);
  t.same(verify.json.plannedBelt, [{ integrationId: 'crm', identityMode: 'caller_required' }]);
  t.same(verify.json.plannedBelt, manifestBelt);
  const published = await ada.post(`/automations/${id}/publish`, { changeNote: 'republish' });
  t.same(published.json, { revision: 2, belt: manifestBelt }, 'continues after the manifest\'s revision 1');
  t.equal(JSON.stringify((await automations.agentRevision(id, 2))!.setup), JSON.stringify((await automations.agentRevision(id, 1))!.setup), 'same frozen setup format (key order)');
});

// On PostgreSQL the writer runs batches in parallel transactions: the agent's row lock orders the publishes.
t.test('concurrent publishes get distinct consecutive revisions', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const id = await newAgent(world, { procedure: 'Read with #crm.get_contact.' });
  const answers = await Promise.all(Array.from({ length: 5 }, () => ada.post(`/automations/${id}/publish`)));
  t.same(answers.map((a) => a.status), [201, 201, 201, 201, 201]);
  t.same(answers.map((a) => a.json.revision).sort(), [1, 2, 3, 4, 5]);
});
