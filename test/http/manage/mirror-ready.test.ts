// Every management route answers as the person a customer-tenant wrapper names (http/auth.ts actAs), as mirrored routes need.
import t from 'tap';
import { actAs } from '../../../http/auth.js';
import { apiKeysRoutes } from '../../../http/routes/api-keys.route.js';
import { automationsManageRoutes } from '../../../http/routes/automations-manage.route.js';
import { knowledgeManageRoutes } from '../../../http/routes/knowledge-manage.route.js';
import { triggersManageRoutes } from '../../../http/routes/triggers-manage.route.js';
import { invokeRoute } from '../../../http/route-invoke.js';
import type { HttpRequest, JsonReply } from '../../../http/types.js';
import { startManageServer } from './manage-fixture.js';

t.test('with a partner bearer and an acting person, the routes act as that person under their rules', async (t) => {
  const f = await startManageServer(t);
  const services = f.server.service.services;
  const orgId = (await services.store.repos.tenancy.domain(f.refs.sales!))!.orgId;
  const request = (method: string, path: string, params: Record<string, string>, as: string): HttpRequest => {
    const req: HttpRequest = {
      method,
      path,
      query: new URLSearchParams(),
      // A partner key is not a user credential: only the acting person can make these calls succeed.
      headers: { authorization: 'Bearer svp_not-a-user-credential' },
      headerCounts: { authorization: 1 },
      params,
      body: Buffer.alloc(0),
      ip: '127.0.0.1',
      requestId: 'mirror-test',
      secure: false,
    };
    actAs(req, { kind: 'user', via: 'partner_subject', userId: f.refs[as]!, orgId, credentialId: 'tenant-call' });
    return req;
  };
  const find = (routes: typeof apiKeysRoutes, method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;

  const keys = (await invokeRoute(find(apiKeysRoutes, 'GET', '/api/v1/api-keys'), request('GET', '/api/v1/api-keys', {}, 'bob'), services)) as JsonReply;
  t.equal(keys.status, 200);
  t.same((keys.body as any).apiKeys.map((k: any) => k.name), ['bob-key'], 'bob\'s own keys');

  const triggers = (await invokeRoute(find(triggersManageRoutes, 'GET', '/api/v1/triggers'), request('GET', '/api/v1/triggers', {}, 'bob'), services)) as JsonReply;
  t.ok((triggers.body as any).triggers.length > 0);

  const archive = find(automationsManageRoutes, 'POST', '/api/v1/authoring/automations/:id/archive');
  await t.rejects(Promise.resolve().then(() => invokeRoute(archive, request('POST', '/x', { id: f.refs.lookup! }, 'bob'), services)), { code: 'FORBIDDEN' }, 'an operator is refused as with a key');

  const list = find(knowledgeManageRoutes, 'GET', '/api/v1/authoring/knowledge-bases/:baseId/articles');
  const articles = (await invokeRoute(list, request('GET', '/x', { baseId: f.refs.playbook! }, 'eve'), services)) as JsonReply;
  t.equal((articles.body as any).articles.length, 2, 'an organization admin reads the organization-wide base');
});
