// Knowledge authoring: modules, articles, publishing, membership (409 cases), agent selection (SPEC "Knowledge resources", "Limits").
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { startAuthoring } from './authoring-fixture.js';

/** The contract manifest plus a sales-only base with one published article, and a second domain. */
const withSalesBase = (manifest: any) => {
  const acme = manifest.organizations[0];
  acme.domains.push({ ref: 'support', name: 'Support', members: [{ user: 'ada', role: 'owner' }] });
  acme.knowledge.bases.push({
    ref: 'sales-notes',
    name: 'Sales notes',
    domain: 'sales',
    articles: [{ ref: 'sales-secret', title: 'Discount rules', body: 'Sales may give 10% off.', published: true }],
  });
  acme.knowledge.modules.push({ ref: 'support-module', kind: 'domain', domain: 'support', name: 'Support answers' });
};

t.test('module kind rules: domain needs domainId, org forbids it; name 1–200, description at most 10,000', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const domainId = world.refs.sales;
  const created = await ada.post('/knowledge-modules', { kind: 'domain', domainId, name: ' Objections ', description: 'How to answer' });
  t.equal(created.status, 201);
  t.same(created.json, { id: created.json.id, kind: 'domain', domainId, name: 'Objections', description: 'How to answer' });
  const org = await ada.post('/knowledge-modules', { kind: 'org', name: 'Company' });
  t.equal(org.status, 201);
  t.equal(org.json.domainId, null);
  const cases: Array<[string, unknown]> = [
    ['domain without domainId', { kind: 'domain', name: 'x' }],
    ['org with domainId', { kind: 'org', domainId, name: 'x' }],
    ['name of 201', { kind: 'org', name: 'n'.repeat(201) }],
    ['blank name', { kind: 'org', name: ' ' }],
    ['description of 10,001', { kind: 'org', name: 'x', description: 'd'.repeat(10_001) }],
    ['unknown kind', { kind: 'team', name: 'x' }],
    ['unknown field', { kind: 'org', name: 'x', articles: [] }],
  ];
  for (const [label, body] of cases) {
    const answer = await ada.post('/knowledge-modules', body);
    t.equal(answer.status, 400, label);
    t.equal(answer.json.error.code, 'VALIDATION', label);
  }
  t.equal((await ada.post('/knowledge-modules', { kind: 'org', name: 'n'.repeat(200), description: 'd'.repeat(10_000) })).status, 201, 'at the bounds');
  const read = await ada.get(`/knowledge-modules/${created.json.id}`);
  t.same(read.json.articleIds, []);
});

t.test('module permissions: domain modules need manage_knowledge, org modules organization owner/admin; other org 404', async (t) => {
  const world = await startAuthoring(t);
  const domainId = world.refs.sales;
  const bob = world.as(world.refs['bob-key']);
  const eve = world.as(world.refs['eve-key']);
  t.equal((await bob.post('/knowledge-modules', { kind: 'domain', domainId, name: 'x' })).status, 403, 'operator');
  t.equal((await eve.post('/knowledge-modules', { kind: 'domain', domainId, name: 'x' })).status, 403, 'org admin without domain role');
  t.equal((await eve.post('/knowledge-modules', { kind: 'org', name: 'x' })).status, 201, 'org admin may create org modules');
  await world.setDomainRole('sales', 'bob', 'editor');
  t.equal((await bob.post('/knowledge-modules', { kind: 'domain', domainId, name: 'x' })).status, 201, 'editor');
  t.equal((await bob.post('/knowledge-modules', { kind: 'org', name: 'x' })).status, 403, 'an editor is not an organization admin');
  const gina = world.as(world.refs['gina-key']);
  t.equal((await gina.post('/knowledge-modules', { kind: 'domain', domainId, name: 'x' })).status, 404);
});

t.test('articles: created as unpublished drafts; title 1–240, draftBody up to 2,000,000 characters', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const base = world.refs.playbook;
  const created = await ada.post(`/knowledge-bases/${base}/articles`, { title: 'Refunds', draftBody: 'Refunds within 30 days.' });
  t.equal(created.status, 201);
  t.match(created.json, { baseId: base, title: 'Refunds', draftBody: 'Refunds within 30 days.', published: false, publishedBody: null, publishedAt: null });
  t.equal((await ada.post(`/knowledge-bases/${base}/articles`, { title: 'No body' })).json.draftBody, null);
  t.equal((await ada.post(`/knowledge-bases/${base}/articles`, { title: 'Null body', draftBody: null })).status, 201);
  t.equal((await ada.post(`/knowledge-bases/${base}/articles`, { title: 't'.repeat(240) })).status, 201);
  t.equal((await ada.post(`/knowledge-bases/${base}/articles`, { title: 't'.repeat(241) })).status, 400);
  t.equal((await ada.post(`/knowledge-bases/${base}/articles`, { title: '' })).status, 400);
  t.equal((await ada.post(`/knowledge-bases/${base}/articles`, { title: 'x', published: true })).status, 400, 'strict');
  const max = await ada.post(`/knowledge-bases/${base}/articles`, { title: 'Huge', draftBody: 'é'.repeat(2_000_000) });
  t.equal(max.status, 201, '2,000,000 characters (4 MB of UTF-8) fit the route body limit');
  t.equal(max.json.draftBody.length, 2_000_000);
  const over = await ada.post(`/knowledge-bases/${base}/articles`, { title: 'Huge', draftBody: 'x'.repeat(2_000_001) });
  t.equal(over.status, 400);
  t.equal(over.json.error.code, 'VALIDATION');
});

t.test('article permissions: organization-wide base needs owner/admin, a domain base manage_knowledge; other org 404', async (t) => {
  const world = await startAuthoring(t, withSalesBase);
  const bob = world.as(world.refs['bob-key']);
  const eve = world.as(world.refs['eve-key']);
  t.equal((await bob.post(`/knowledge-bases/${world.refs.playbook}/articles`, { title: 'x' })).status, 403);
  t.equal((await eve.post(`/knowledge-bases/${world.refs.playbook}/articles`, { title: 'x' })).status, 201, 'org admin, org-wide base');
  t.equal((await eve.post(`/knowledge-bases/${world.refs['sales-notes']}/articles`, { title: 'x' })).status, 403, 'org admin, domain base');
  await world.setDomainRole('sales', 'bob', 'editor');
  t.equal((await bob.post(`/knowledge-bases/${world.refs['sales-notes']}/articles`, { title: 'x' })).status, 201, 'domain editor');
  const gina = world.as(world.refs['gina-key']);
  t.equal((await gina.post(`/knowledge-bases/${world.refs.playbook}/articles`, { title: 'x' })).status, 404);
  t.equal((await gina.post(`/knowledge-bases/${randomUUID()}/articles`, { title: 'x' })).status, 404);
  const bases = await bob.get('/knowledge-bases');
  t.same(bases.json.bases.map((b: any) => b.name), ['Sales notes'], 'lists the bases the caller may write in');
});

t.test('publishing an article makes it published and searchable; later draft edits do not change the published text', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const created = await ada.post(`/knowledge-bases/${world.refs.playbook}/articles`, { title: 'Refunds', draftBody: 'Refunds within 30 days.' });
  const id = created.json.id;
  const published = await ada.post(`/articles/${id}/publish`);
  t.equal(published.status, 200);
  t.match(published.json, { published: true, publishedBody: 'Refunds within 30 days.' });
  t.equal(published.json.publishedAt, new Date(world.server.clock.now()).toISOString());
  const { knowledge } = world.server.service.store.repos;
  t.same((await knowledge.matchPublishedArticles(world.refs.acme, '"refunds"', 5)).map((a) => a.id), [id], 'indexed');
  await ada.patch(`/articles/${id}`, { draftBody: 'Refunds within 60 days.' });
  const read = await ada.get(`/articles/${id}`);
  t.match(read.json, { draftBody: 'Refunds within 60 days.', publishedBody: 'Refunds within 30 days.' });
  t.equal((await ada.post(`/articles/${id}/publish`, { now: true })).status, 400, 'publish takes no fields');
  t.equal((await world.as(world.refs['gina-key']).post(`/articles/${id}/publish`)).status, 404);
  t.equal((await world.as(world.refs['bob-key']).post(`/articles/${id}/publish`)).status, 403);
});

t.test('membership: 201 row; 409 for an unpublished article, an article already in the module, or a base the module cannot serve', async (t) => {
  const world = await startAuthoring(t, withSalesBase);
  const ada = world.as(world.refs['ada-key']);
  const module = world.refs['pricing-module'];
  const article = await ada.post(`/knowledge-bases/${world.refs.playbook}/articles`, { title: 'Seats', draftBody: 'Seats are billed monthly.' });

  const unpublished = await ada.post(`/knowledge-modules/${module}/articles`, { articleId: article.json.id });
  t.equal(unpublished.status, 409);
  t.same(unpublished.json.error.code, 'CONFLICT');
  t.equal(unpublished.json.error.details.reason, 'article_unpublished');

  await ada.post(`/articles/${article.json.id}/publish`);
  const added = await ada.post(`/knowledge-modules/${module}/articles`, { articleId: article.json.id });
  t.equal(added.status, 201);
  t.same(added.json, { moduleId: module, articleId: article.json.id, createdAt: new Date(world.server.clock.now()).toISOString() });
  const again = await ada.post(`/knowledge-modules/${module}/articles`, { articleId: article.json.id });
  t.equal(again.status, 409);
  t.equal(again.json.error.details.reason, 'already_member');
  t.equal((await ada.post(`/knowledge-modules/${module}/articles`, { articleId: world.refs.pricing })).json.error.details.reason, 'already_member', 'manifest membership');

  const orgModule = (await ada.post('/knowledge-modules', { kind: 'org', name: 'Everyone' })).json.id;
  const leak = await ada.post(`/knowledge-modules/${orgModule}/articles`, { articleId: world.refs['sales-secret'] });
  t.equal(leak.status, 409, 'a sales-only article cannot join an organization module');
  t.equal(leak.json.error.details.reason, 'base_not_visible');
  const otherDomain = await ada.post(`/knowledge-modules/${world.refs['support-module']}/articles`, { articleId: world.refs['sales-secret'] });
  t.equal(otherDomain.json.error.details.reason, 'base_not_visible', 'nor another domain\'s module');
  t.equal((await ada.post(`/knowledge-modules/${module}/articles`, { articleId: world.refs['sales-secret'] })).status, 201, 'its own domain\'s module may');
  t.equal((await ada.post(`/knowledge-modules/${orgModule}/articles`, { articleId: world.refs.pricing })).status, 201, 'org-wide base fits an org module');

  const read = await ada.get(`/knowledge-modules/${module}`);
  // Joined at the same (frozen) instant: membership order is then by article id.
  t.same([...read.json.articleIds].sort(), [world.refs.pricing, article.json.id, world.refs['sales-secret']].sort());
});

t.test('membership: bad body 400, other organization 404, missing permission 403', async (t) => {
  const world = await startAuthoring(t);
  const ada = world.as(world.refs['ada-key']);
  const module = world.refs['pricing-module'];
  t.equal((await ada.post(`/knowledge-modules/${module}/articles`, { articleId: 'nope' })).status, 400);
  t.equal((await ada.post(`/knowledge-modules/${module}/articles`, { articleId: world.refs.pricing, note: 'x' })).status, 400);
  t.equal((await ada.post(`/knowledge-modules/${module}/articles`, { articleId: randomUUID() })).status, 404, 'unknown article');
  t.equal((await world.as(world.refs['gina-key']).post(`/knowledge-modules/${module}/articles`, { articleId: world.refs.wip })).status, 404);
  t.equal((await world.as(world.refs['bob-key']).post(`/knowledge-modules/${module}/articles`, { articleId: world.refs.wip })).status, 403);
});

t.test('selection: answer normalized and deduplicated; modules must be visible; at most 100 ids', async (t) => {
  const world = await startAuthoring(t, withSalesBase);
  const ada = world.as(world.refs['ada-key']);
  const agent = world.refs.lookup;
  const module = world.refs['pricing-module'];
  const orgModule = (await ada.post('/knowledge-modules', { kind: 'org', name: 'Everyone' })).json.id;

  const set = await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'modules', moduleIds: [module.toUpperCase(), orgModule, module] });
  t.equal(set.status, 200);
  t.same(set.json, { mode: 'modules', moduleIds: [module, orgModule] });
  t.same((await ada.get(`/automations/${agent}/knowledge-selection`)).json, set.json, 'read back');

  t.same((await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'org' })).json, { mode: 'org', moduleIds: [] });
  t.same((await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'modules' })).json, { mode: 'modules', moduleIds: [] });
  t.equal((await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'domain', moduleIds: [module] })).status, 400, 'ids only with mode modules');

  const invisible = await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'modules', moduleIds: [world.refs['support-module']] });
  t.equal(invisible.status, 400, 'another domain\'s module is not visible to a sales agent');
  t.same(invisible.json.error.details.moduleIds, [world.refs['support-module']]);
  const gina = world.as(world.refs['gina-key']);
  const globexModule = (await gina.post('/knowledge-modules', { kind: 'org', name: 'Globex' })).json.id;
  t.equal((await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'modules', moduleIds: [globexModule] })).status, 404, 'another organization\'s module');
  t.equal((await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'modules', moduleIds: [randomUUID()] })).status, 404);

  const many = Array.from({ length: 101 }, () => module);
  t.equal((await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'modules', moduleIds: many })).status, 400, '101 ids');
  t.same((await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'modules', moduleIds: many.slice(1) })).json.moduleIds, [module], '100 ids');
  t.equal((await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'all' })).status, 400);
  t.equal((await ada.put(`/automations/${agent}/knowledge-selection`, { mode: 'none', extra: 1 })).status, 400);
  t.same((await ada.get(`/automations/${agent}/knowledge-selection`)).json, { mode: 'modules', moduleIds: [module] }, 'refusals changed nothing');
});

t.test('selection requires manage_knowledge in the agent\'s domain', async (t) => {
  const world = await startAuthoring(t);
  const bob = world.as(world.refs['bob-key']);
  const path = `/automations/${world.refs.lookup}/knowledge-selection`;
  t.equal((await bob.put(path, { mode: 'org' })).status, 403);
  await world.setDomainRole('sales', 'bob', 'editor');
  t.equal((await bob.put(path, { mode: 'org' })).status, 200);
});
