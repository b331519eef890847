// Authoring credentials act with the user's current permissions (SPEC "Authentication"); every authoring route is in the OpenAPI document.
import t from 'tap';
import { call } from '../../helpers/http.js';
import { authoringRoutes } from '../../../http/routes/authoring.route.js';
import { knowledgeRoutes } from '../../../http/routes/knowledge.route.js';
import { startAuthoring, userToken } from './authoring-fixture.js';

t.test('an svu_ token is refused (uniform 404) once its user is disabled, before the token expires', async (t) => {
  const world = await startAuthoring(t);
  const token = await userToken(world.server, 'ada@acme.test', 'ada-password-1');
  const ada = world.as(token);
  t.equal((await ada.get(`/automations/${world.refs.lookup}`)).status, 200);
  (await world.server.service.store.repos.tenancy.setUserDisabled(world.refs.ada, true));
  const refused = await ada.get(`/automations/${world.refs.lookup}`);
  t.equal(refused.status, 404);
  t.same(refused.json, { error: { code: 'NOT_FOUND', message: 'Not found.' } });
  t.equal((await world.as(world.refs['ada-key']).get('/integrations')).status, 404, 'and so is the sv_ key');
  (await world.server.service.store.repos.tenancy.setUserDisabled(world.refs.ada, false));
  t.equal((await ada.get(`/automations/${world.refs.lookup}`)).status, 200, 'membership is re-read on every call');
});

t.test('an svu_ token is refused once its user is removed from the organization', async (t) => {
  const world = await startAuthoring(t);
  const token = await userToken(world.server, 'ada@acme.test', 'ada-password-1');
  (await world.server.service.store.repos.tenancy.removeOrgMember(world.refs.acme, world.refs.ada));
  const answer = await world.as(token).post('/automations', { domainId: world.refs.sales, name: 'x' });
  t.equal(answer.status, 404);
});

t.test('permissions are the current ones: losing the domain role turns 201 into 403 for the same token', async (t) => {
  const world = await startAuthoring(t);
  const token = await userToken(world.server, 'ada@acme.test', 'ada-password-1');
  const ada = world.as(token);
  t.equal((await ada.post('/automations', { domainId: world.refs.sales, name: 'x' })).status, 201);
  await world.setDomainRole('sales', 'ada', 'viewer');
  t.equal((await ada.post('/automations', { domainId: world.refs.sales, name: 'y' })).status, 403);
  t.equal((await ada.patch(`/automations/${world.refs.lookup}/setup`, { principles: 'x' })).status, 403);
});

t.test('the token expires after one hour by the injected clock', async (t) => {
  const world = await startAuthoring(t);
  const token = await userToken(world.server, 'ada@acme.test', 'ada-password-1');
  world.server.clock.advance(3_600_000);
  t.equal((await world.as(token).get('/integrations')).status, 404);
});

t.test('every authoring route appears in /api/v1/openapi.json with its request body schema', async (t) => {
  const world = await startAuthoring(t);
  const doc = (await call(`${world.server.url}/api/v1/openapi.json`)).json;
  const routes = [...authoringRoutes, ...knowledgeRoutes];
  t.ok(routes.length >= 17);
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = doc.paths[path]?.[route.method.toLowerCase()];
    t.ok(operation, `${route.method} ${path}`);
    if (route.doc.body) t.ok(operation?.requestBody?.content?.['application/json']?.schema, `${route.method} ${path} documents its body`);
  }
  const spec: Array<[string, string]> = [
    ['get', '/api/v1/authoring/integrations'],
    ['get', '/api/v1/authoring/integrations/{id}'],
    ['post', '/api/v1/authoring/automations'],
    ['patch', '/api/v1/authoring/automations/{id}/setup'],
    ['post', '/api/v1/authoring/automations/{id}/publish'],
    ['get', '/api/v1/authoring/automations/{id}/verify'],
    ['put', '/api/v1/authoring/automations/{id}/knowledge-selection'],
    ['post', '/api/v1/authoring/knowledge-modules'],
    ['post', '/api/v1/authoring/knowledge-bases/{baseId}/articles'],
    ['post', '/api/v1/authoring/knowledge-modules/{moduleId}/articles'],
    ['post', '/api/v1/authoring/articles/{articleId}/publish'],
  ];
  for (const [method, path] of spec) t.ok(doc.paths[path]?.[method], `spec route ${method.toUpperCase()} ${path}`);
  // The body the route shares with its customer-tenant twin is one component (a $ref).
  const declared = doc.paths['/api/v1/authoring/automations'].post.requestBody.content['application/json'].schema;
  const create = declared.$ref ? doc.components.schemas[declared.$ref.replace('#/components/schemas/', '')] : declared;
  t.equal(create.additionalProperties, false, 'strict bodies are documented as closed');
});
