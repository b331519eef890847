// Guards the integration catalog: lookup, model listing, authoring search (SPEC "Integration and tool", Limits: 200 / 50).
import t from 'tap';
import { IntegrationDefinitionSchema, type IntegrationDefinition } from '../../../runtime/manifest/integration.schema.js';
import { createToolCatalog, SEARCH_RESULT_LIMIT } from '../../../runtime/tools/catalog.js';
import { crmIntegration } from './crm-integration.fixture.js';

const crm = crmIntegration('http://127.0.0.1:4010');

function integration(id: string, extra: Partial<IntegrationDefinition> = {}): IntegrationDefinition {
  return IntegrationDefinitionSchema.parse({
    id,
    name: `Integration ${id}`,
    description: 'Plain',
    baseUrl: 'https://api.example.com',
    tools: [{ name: `${id}.ping`, description: 'Ping it', readonly: true, request: { method: 'GET', path: '/ping' }, inputSchema: { type: 'object' } }],
    ...extra,
  });
}

t.test('built-in http and knowledge are part of the catalog beside manifest integrations', async (t) => {
  const catalog = createToolCatalog([crm]);
  t.same(
    catalog.integrations().map((e) => [e.integration.id, e.source]),
    [
      ['crm', 'manifest'],
      ['http', 'builtin'],
      ['knowledge', 'builtin'],
    ],
  );
  t.match(catalog.findTool('http.request'), { source: 'builtin', integration: { id: 'http' }, tool: { readonly: false } });
  t.match(catalog.findTool('knowledge.search'), { source: 'builtin', tool: { readonly: true } });
  const found = catalog.findTool('crm.update_contact');
  t.match(found, { source: 'manifest', integration: { id: 'crm' }, tool: { request: { method: 'PATCH', path: '/contacts/{id}', body: 'rest' } } });
  t.equal(catalog.findTool('crm.nope'), undefined);
  t.equal(catalog.findTool('crm'), undefined, 'integration-level references do not exist');
});

t.test('toolsOf lists an integration\'s tools; unknown ids give undefined', async (t) => {
  const catalog = createToolCatalog([crm]);
  t.same(catalog.toolsOf('http')!.map((tool) => tool.name), ['http.request', 'http.get']);
  t.equal(catalog.toolsOf('crm')!.length, crm.tools.length);
  t.equal(catalog.toolsOf('nope'), undefined);
});

t.test('the model listing gives name, description and inputSchema, in the order asked, skipping unknown and repeated ids', async (t) => {
  const catalog = createToolCatalog([crm]);
  const listed = catalog.modelTools(['crm.update_contact', 'missing.tool', 'http.get', 'crm.update_contact']);
  t.same(listed.map((tool) => tool.name), ['crm.update_contact', 'http.get']);
  t.same(Object.keys(listed[0]!).sort(), ['description', 'inputSchema', 'name']);
  t.same(listed[0]!.inputSchema, crm.tools[1]!.inputSchema);
});

t.test('search is a trimmed, case-insensitive substring match over ids, names, descriptions and tools', async (t) => {
  const catalog = createToolCatalog([crm, integration('billing', { name: 'Stripe Billing', description: 'Invoices and refunds' })]);
  const ids = (q: string) => catalog.search(q).map((view) => view.id);
  t.same(ids('  CRM '), ['crm'], 'integration id');
  t.same(ids('acme'), ['crm'], 'integration name');
  t.same(ids('REFUNDS'), ['billing'], 'integration description');
  t.same(ids('update_contact'), ['crm'], 'tool name');
  t.same(ids('attach a note'), ['crm'], 'tool description');
  t.same(ids('generic http'), ['http']);
  t.same(ids(''), ['billing', 'crm', 'http', 'knowledge'], 'an empty query lists everything');
  t.same(ids('no such thing'), []);
  t.same(ids('billing\ninvoices'), [], 'a match never spans two fields');
});

t.test('search results are the authoring view: tools with reference "#wire id", no inputSchema; view() adds inputSchema', async (t) => {
  const catalog = createToolCatalog([crm]);
  const [view] = catalog.search('crm');
  t.same(view!.tools[0], { name: 'crm.get_contact', reference: '#crm.get_contact', description: 'Read one contact by id', isReadonly: true });
  t.same(Object.keys(view!).sort(), ['description', 'id', 'name', 'tools']);
  const single = catalog.view('crm');
  t.same(single!.tools[0]!.inputSchema, crm.tools[0]!.inputSchema);
  t.equal(catalog.view('nope'), undefined);
});

t.test('search returns at most 50 integrations and refuses a query over 200 characters', async (t) => {
  const many = Array.from({ length: 60 }, (_, i) => integration(`svc${String(i).padStart(2, '0')}`));
  const catalog = createToolCatalog(many);
  const found = catalog.search('svc');
  t.equal(found.length, SEARCH_RESULT_LIMIT);
  t.equal(found[0]!.id, 'svc00');
  t.equal(catalog.search('x'.repeat(200)).length, 0);
  t.throws(() => catalog.search('x'.repeat(201)), { name: 'AppError', code: 'VALIDATION' });
});

t.test('a manifest cannot redefine a built-in or repeat an integration id', async (t) => {
  const shadow = integration('http');
  t.throws(() => createToolCatalog([shadow]), { name: 'AppError', code: 'VALIDATION', message: /"http"/ });
  t.throws(() => createToolCatalog([crm, crm]), { name: 'AppError', code: 'VALIDATION' });
  t.doesNotThrow(() => createToolCatalog([shadow], { builtins: [] }), 'without built-ins the id is free');
});
