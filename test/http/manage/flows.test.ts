// Flows from their JSON definition over HTTP (issue 13 item 6): create, version, publish; edit_automation in the domain.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { startManage } from './org-manage-fixture.js';

const definition = (note = 'vip') => ({
  inputs: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  steps: [
    { id: 'get', tool: 'crm.get_contact', args: { id: '{{input.id}}' } },
    { id: 'tag', tool: 'crm.update_contact', args: { id: '{{input.id}}', note } },
  ],
  output: '{{steps.get.output}}',
  bindings: { crm: 'service' },
});

t.test('create, add versions (only when changed), publish, roll back by publishing an earlier version', async (t) => {
  const m = await startManage(t);
  const domainId = m.c.refs.sales!;
  const created = await m.as('ada', 'POST', '/flows', { domainId, name: 'Tagger', definition: definition() });
  t.equal(created.status, 201);
  t.match(created.json.flow, { name: 'Tagger', domainId, publishedVersion: null, latestVersion: 1 });
  const flowId: string = created.json.flow.flowId;

  const same = await m.as('ada', 'POST', `/flows/${flowId}/versions`, { definition: definition() });
  t.equal(same.status, 200);
  t.equal(same.json.created, false, 'an unchanged definition adds no version');
  const v2 = await m.as('ada', 'POST', `/flows/${flowId}/versions`, { definition: definition('gold'), publish: true });
  t.match(v2.json, { created: true, flow: { latestVersion: 2, publishedVersion: 2 } });
  const back = await m.as('ada', 'POST', `/flows/${flowId}/publish`, { version: 1 });
  t.equal(back.status, 200);
  t.equal(back.json.flow.publishedVersion, 1, 'rolling back is publishing an earlier version');
  t.equal((await m.as('ada', 'POST', `/flows/${flowId}/publish`, { version: 9 })).status, 400);
  const read = await m.as('ada', 'GET', `/flows/${flowId}`);
  t.equal(read.status, 200);
  t.equal(read.json.definition.steps[1].args.note, 'gold', 'the read shows the latest version');
  t.equal(await m.c.count('SELECT COUNT(*) AS n FROM flow_versions WHERE automation_id = ?', flowId), 2);
});

// On PostgreSQL the units run in concurrent transactions: the flow's row lock orders them (latest + 1 each).
t.test('concurrent new versions of one flow: each gets its own number, none answers 500', async (t) => {
  const m = await startManage(t);
  const created = await m.as('ada', 'POST', '/flows', { domainId: m.c.refs.sales!, name: 'Racer', definition: definition() });
  const flowId: string = created.json.flow.flowId;
  const answers = await Promise.all(['a', 'b', 'c', 'd'].map((note) => m.as('ada', 'POST', `/flows/${flowId}/versions`, { definition: definition(note) })));
  t.same(answers.map((a) => a.status), [200, 200, 200, 200]);
  t.ok(answers.every((a) => a.json.created === true), 'four different definitions, four versions');
  t.equal(await m.c.count('SELECT COUNT(*) AS n FROM flow_versions WHERE automation_id = ?', flowId), 5);
  t.equal((await m.as('ada', 'GET', `/flows/${flowId}`)).json.flow.latestVersion, 5);
});

t.test('definitions are checked like a manifest\'s (422 with issues), bodies are strict (400), nothing partial is stored', async (t) => {
  const m = await startManage(t);
  const domainId = m.c.refs.sales!;
  const before = await m.c.count(`SELECT COUNT(*) AS n FROM automations WHERE kind = 'flow'`);
  const badTool = { ...definition(), steps: [{ id: 'x', tool: 'crm.nope', args: {} }] };
  const unknown = await m.as('ada', 'POST', '/flows', { domainId, name: 'Bad', definition: badTool });
  t.equal(unknown.status, 422);
  t.equal(unknown.json.error.code, 'VALIDATION');
  t.match(unknown.json.error.details.issues, [{ path: 'definition.steps[0].tool', message: /no tool "crm.nope"/ }]);
  const badRef = { ...definition(), output: '{{steps.missing.output}}' };
  t.equal((await m.as('ada', 'POST', '/flows', { domainId, name: 'Bad', definition: badRef })).status, 422);
  for (const body of [{ domainId, name: 'X', definition: definition(), extra: 1 }, { domainId, name: 'X', definition: { ...definition(), junk: 1 } }, { domainId, name: 'X' }, { domainId: 'nope', name: 'X', definition: definition() }]) {
    const bad = await m.as('ada', 'POST', '/flows', body);
    t.equal(bad.status, 400, JSON.stringify(body).slice(0, 60));
  }
  t.equal(await m.c.count(`SELECT COUNT(*) AS n FROM automations WHERE kind = 'flow'`), before, 'nothing stored');
});

t.test('edit_automation in the domain: operators get 403 inside, other organizations 404', async (t) => {
  const m = await startManage(t);
  const domainId = m.c.refs.sales!;
  t.equal((await m.as('bob', 'POST', '/flows', { domainId, name: 'Mine', definition: definition() })).status, 403, 'an operator cannot author');
  t.equal((await m.as('eve', 'POST', '/flows', { domainId, name: 'Mine', definition: definition() })).status, 403, 'org Admin status does not grant edit_automation');
  const created = await m.as('ada', 'POST', '/flows', { domainId, name: 'Mine', definition: definition() });
  const flowId: string = created.json.flow.flowId;
  t.equal((await m.as('bob', 'POST', `/flows/${flowId}/publish`, { version: 1 })).status, 403);
  const foreign = await m.as('gina', 'GET', `/flows/${flowId}`);
  const unknownId = await m.as('gina', 'GET', `/flows/${newId()}`);
  t.equal(foreign.status, 404);
  t.equal(foreign.text, unknownId.text, 'another organization\'s flow: the same 404');
  t.equal((await m.as('gina', 'POST', '/flows', { domainId, name: 'X', definition: definition() })).status, 404, 'another organization\'s domain');
  const agent = await m.as('ada', 'GET', `/flows/${m.c.refs['support-agent'] ?? m.c.refs.writer}`);
  t.equal(agent.status, 404, 'an agent is not a flow');
  t.equal((await m.as(null, 'GET', `/flows/${flowId}`)).status, 401);
});
