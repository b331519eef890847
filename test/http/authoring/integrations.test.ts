// GET /authoring/integrations and /authoring/integrations/:id (SPEC "Authoring", "Integration and tool (authoring view)", "Limits").
import t from 'tap';
import { startAuthoring, userToken } from './authoring-fixture.js';

function bulkIntegration(n: number) {
  const id = `bulk-${String(n).padStart(2, '0')}`;
  return {
    id,
    name: `Bulk ${n}`,
    description: 'Generated for the result cap',
    baseUrl: 'http://127.0.0.1:4011',
    tools: [
      {
        name: `${id}.ping`,
        description: 'Ping',
        readonly: true,
        request: { method: 'GET', path: '/ping' },
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      },
    ],
  };
}

t.test('search matches tool descriptions case-insensitively after trimming; tools carry name, #reference, description, isReadonly', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const answer = await ada.get(`/integrations?q=${encodeURIComponent('  CHANGE FIELDS  ')}`);
  t.equal(answer.status, 200);
  t.same(answer.json.integrations.map((i: any) => i.id), ['crm'], 'only the CRM has a tool described "Change fields…"');
  const [crm] = answer.json.integrations;
  t.same(crm.tools, [
    { name: 'crm.get_contact', reference: '#crm.get_contact', description: 'Read one contact by id', isReadonly: true },
    { name: 'crm.update_contact', reference: '#crm.update_contact', description: 'Change fields of one contact', isReadonly: false },
  ]);
  t.notOk('reference' in crm, 'integrations themselves carry no reference');
});

t.test('search matches integration ids, names and tool names; no q lists the catalog with the built-ins', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  t.same((await ada.get('/integrations?q=acme')).json.integrations.map((i: any) => i.id), ['crm'], 'by name');
  t.same((await ada.get('/integrations?q=CRM')).json.integrations.map((i: any) => i.id), ['crm'], 'by id');
  t.same((await ada.get('/integrations?q=get_contact')).json.integrations.map((i: any) => i.id), ['crm'], 'by tool name');
  t.same((await ada.get('/integrations?q=zzz-nothing')).json.integrations, []);
  const all = (await ada.get('/integrations')).json.integrations.map((i: any) => i.id);
  t.same(all, ['crm', 'http', 'knowledge'], 'the knowledge.search and http tools are referencable too');
});

t.test('q is at most 200 characters: 200 is searched, 201 is 400 VALIDATION', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const ok = await ada.get(`/integrations?q=${'a'.repeat(200)}`);
  t.equal(ok.status, 200);
  t.same(ok.json.integrations, []);
  const tooLong = await ada.get(`/integrations?q=${'a'.repeat(201)}`);
  t.equal(tooLong.status, 400);
  t.equal(tooLong.json.error.code, 'VALIDATION');
  const padded = await ada.get(`/integrations?q=${encodeURIComponent(`  ${'a'.repeat(200)}  `)}`);
  t.equal(padded.status, 200, 'the bound applies to the trimmed term');
});

t.test('at most 50 integrations are returned', async (t) => {
  const world = await startAuthoring(t, (manifest) => {
    for (let n = 0; n < 60; n++) manifest.integrations.push(bulkIntegration(n));
  });
  const ada = world.as(world.refs['ada-key']);
  const answer = await ada.get('/integrations?q=bulk');
  t.equal(answer.status, 200);
  t.equal(answer.json.integrations.length, 50);
  t.equal((await ada.get('/integrations')).json.integrations.length, 50, 'also without q');
});

t.test('single read adds inputSchema; unknown, unavailable and other-organization ids are the uniform 404', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const crm = await ada.get('/integrations/crm');
  t.equal(crm.status, 200);
  t.equal(crm.json.id, 'crm');
  t.same(crm.json.tools[0].inputSchema, { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false });
  t.equal(crm.json.tools[1].reference, '#crm.update_contact');

  const { integrations } = world.server.service.store.repos;
  const stored = (await integrations.integration('crm'))!;
  const globexId = world.refs.globex;
  const renamed = (id: string) => JSON.parse(JSON.stringify(stored.definition).replaceAll('"crm', `"${id}`)) as unknown;
  (await integrations.upsertIntegration({ ...stored, id: 'secret-erp', orgId: globexId, name: 'Globex ERP', definition: renamed('secret-erp') }));
  (await integrations.upsertIntegration({ ...stored, id: 'retired', available: false, definition: renamed('retired') }));

  const unknown = await ada.get('/integrations/nope');
  t.equal(unknown.status, 404);
  for (const id of ['secret-erp', 'retired']) {
    const answer = await ada.get(`/integrations/${id}`);
    t.equal(answer.status, 404, id);
    t.same(answer.json, unknown.json, `${id}: same bytes as an unknown id`);
  }
  t.same((await ada.get('/integrations?q=erp')).json.integrations, [], 'another organization\'s integration is not searchable');
  const gina = world.as(world.refs['gina-key']);
  t.equal((await gina.get('/integrations/secret-erp')).status, 200, 'its own organization sees it');
});

t.test('an svu_ user token is accepted; a missing or invalid credential is 404', async (t) => {
  const world = await startAuthoring(t);
  const token = await userToken(world.server, 'ada@acme.test', 'ada-password-1');
  t.equal((await world.as(token).get('/integrations/crm')).status, 200);
  t.equal((await world.as('sv_nonsense').get('/integrations/crm')).status, 404);
});
