// Customer-tenant mirroring (issue 13 item 6): authoring, knowledge and the management routes under /organizations/:orgId as X-Service-Subject.
import t from 'tap';
import { allRoutes } from '../../../http/routes/index.js';
import { TENANT_BASE, partnerTenantRoutes } from '../../../http/routes/partner-tenant.route.js';
import { createHttpMetrics } from '../../../http/metrics.js';
import { staffedCustomer, startPartner } from '../partner/partner-fixture.js';

t.test('a partner authors flows and reads authoring and knowledge as the named person, under the same rules', async (t) => {
  const p = await startPartner(t);
  const customer = await staffedCustomer(p, 'mirror-co');
  await customer.vouch('ed-1', 'editor');
  await customer.vouch('op-1', 'operator');
  const as = (subject: string, method: string, path: string, json?: unknown) =>
    p.api(method, `/organizations/${customer.orgId}${path}`, customer.key, json, { 'x-service-subject': subject });
  const definition = {
    inputs: { type: 'object', properties: { id: { type: 'string' } } },
    steps: [{ id: 'get', tool: 'crm.get_contact', args: { id: '{{input.id}}' } }],
    bindings: { crm: 'service' },
  };
  const created = await as('ed-1', 'POST', '/flows', { domainId: customer.domainId, name: 'Mirror flow', definition, publish: true });
  t.equal(created.status, 201);
  t.equal(await p.count('automations', 'id = ? AND org_id = ? AND created_by IS NOT NULL', created.json.flow.flowId, customer.orgId), 1, 'created in the customer, by the named person');
  t.equal((await as('op-1', 'POST', '/flows', { domainId: customer.domainId, name: 'No', definition })).status, 403, 'an operator subject: the same 403 as on /api/v1');
  t.equal((await as('ed-1', 'GET', '/authoring/integrations')).status, 200, 'authoring routes are mirrored');
  t.equal((await as('ed-1', 'GET', '/authoring/knowledge-bases')).status, 200, 'knowledge routes are mirrored');
  const members = await as('ed-1', 'GET', '/org/members');
  t.equal(members.status, 403, 'organization management needs an Owner/Admin subject');
  const nobody = await as('ghost', 'POST', '/flows', { domainId: customer.domainId, name: 'X', definition });
  t.equal(nobody.status, 404, 'an unknown subject: the neutral 404');
  t.equal((await p.api('GET', `/organizations/${customer.orgId}/authoring/integrations`, customer.key)).status, 404, 'no subject: 404');
  t.equal((await p.api('GET', `/organizations/${customer.orgId}/authoring/integrations`, null, undefined, { 'x-service-subject': 'ed-1' })).status, 401);
});

t.test('mirroring is generic: a route flagged tenant (or a group wrapped in tenantMirrored) gets a twin, with its docs', async (t) => {
  const routes = allRoutes(createHttpMetrics());
  const paths = new Set(routes.map((r) => `${r.method} ${r.path}`));
  for (const route of routes.filter((r) => r.tenant === true)) {
    const twin = `${route.method} ${TENANT_BASE}${route.path.slice('/api/v1'.length)}`;
    t.ok(paths.has(twin), twin);
  }
  const twins = partnerTenantRoutes([{ method: 'GET', path: '/api/v1/new-thing', tenant: true, doc: { summary: 'A new thing.', operationId: 'getNewThing' }, handler: () => ({ status: 200 }) }]);
  t.equal(twins.length, 1);
  t.match(twins[0], { path: `${TENANT_BASE}/new-thing`, tenant: false, doc: { operationId: 'tenantGetNewThing', security: ['partnerKey', 'lease'] } });
  t.equal(partnerTenantRoutes([{ method: 'GET', path: '/api/v1/other', doc: { summary: 'x' }, handler: () => ({ status: 200 }) }]).length, 0, 'unflagged, unlisted routes are not mirrored');
});
