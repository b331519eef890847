// Knowledge clean-up routes: list a base's articles (paged), unpublish, delete articles, remove from a module, delete modules.
import t from 'tap';
import { allPages, startManageServer, UNKNOWN } from './manage-fixture.js';

const A = '/api/v1/authoring';

async function world(t: { teardown(fn: () => unknown): void }) {
  const f = await startManageServer(t);
  const { repos } = f.server.service.store;
  const orgId = (await repos.tenancy.domain(f.refs.sales!))!.orgId;
  const search = async (word: string) => (await repos.knowledge.matchPublishedArticles(orgId, `"${word}"`, 10)).map((a) => a.id);
  return { f, repos, orgId, search };
}

t.test('list: a base\'s articles without bodies, published filter, cursor pages, authority and uniform 404', async (t) => {
  const { f } = await world(t);
  const path = `${A}/knowledge-bases/${f.refs.playbook}/articles`;
  const listed = await f.req('GET', path, { user: 'eve' });
  t.equal(listed.status, 200, 'an organization admin manages organization-wide bases');
  t.same(listed.json.articles.map((a: any) => [a.id, a.published]), [[f.refs.pricing, true], [f.refs.wip, false]]);
  t.notOk('draftBody' in listed.json.articles[0], 'no bodies in a list');
  t.same((await f.req('GET', `${path}?published=true`, { key: f.key('ada-key') })).json.articles.map((a: any) => a.id), [f.refs.pricing]);
  t.same((await f.req('GET', `${path}?published=false`, { user: 'ada' })).json.articles.map((a: any) => a.id), [f.refs.wip]);
  const paged = await allPages((cursor) => f.req('GET', `${path}?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { user: 'ada' }), 'articles');
  t.same(paged.items.map((a) => a.id), [f.refs.pricing, f.refs.wip]);
  t.equal(paged.pages, 2);

  t.equal((await f.req('GET', path, { user: 'bob' })).status, 403, 'a member without organization authority');
  t.equal((await f.req('GET', `${path}?published=yes`, { user: 'ada' })).status, 400);
  t.equal((await f.req('GET', `${path}?title=x`, { user: 'ada' })).status, 400, 'strict query');
  const foreign = await f.req('GET', path, { user: 'gina' });
  const unknown = await f.req('GET', `${A}/knowledge-bases/${UNKNOWN}/articles`, { user: 'ada' });
  const garbage = await f.req('GET', `${A}/knowledge-bases/playbook/articles`, { user: 'ada' });
  for (const answer of [foreign, unknown, garbage]) t.equal(answer.text, unknown.text, 'uniform 404');
  t.equal(unknown.status, 404);
});

t.test('unpublish: out of search at once, memberships kept, publish brings it back; idempotent; strict', async (t) => {
  const { f, repos, search } = await world(t);
  const pricing = f.refs.pricing!;
  t.same((await search('Enterprise')), [pricing], 'found before');
  const off = await f.req('POST', `${A}/articles/${pricing}/unpublish`, { user: 'ada' });
  t.equal(off.status, 200);
  t.match(off.json, { id: pricing, published: false, publishedBody: null, publishedAt: null, draftBody: 'Enterprise starts at 50 seats.' });
  t.same((await search('Enterprise')), [], 'not found once unpublished');
  t.same((await repos.knowledge.moduleArticleIds(f.refs['pricing-module']!)), [pricing], 'membership kept');
  t.equal((await f.req('POST', `${A}/articles/${pricing}/unpublish`, { user: 'ada' }, {})).status, 200, 'idempotent');
  t.equal((await f.req('POST', `${A}/articles/${pricing}/publish`, { key: f.key('ada-key') })).status, 200);
  t.same((await search('Enterprise')), [pricing], 'publishing again brings it back');

  t.equal((await f.req('POST', `${A}/articles/${pricing}/unpublish`, { user: 'ada' }, { hard: true })).status, 400, 'strict body');
  t.equal((await f.req('POST', `${A}/articles/${pricing}/unpublish`, { user: 'bob' })).status, 403);
  t.equal((await f.req('POST', `${A}/articles/${pricing}/unpublish`, { user: 'gina' })).status, 404);
});

t.test('delete an article: gone from search, modules and reads', async (t) => {
  const { f, repos, search } = await world(t);
  const pricing = f.refs.pricing!;
  t.equal((await f.req('DELETE', `${A}/articles/${pricing}`, { key: f.key('bob-key') })).status, 403);
  t.equal((await f.req('DELETE', `${A}/articles/${pricing}`, { user: 'gina' })).status, 404);
  t.equal((await f.req('DELETE', `${A}/articles/${pricing}`, { user: 'eve' })).status, 204);
  t.same((await search('Enterprise')), []);
  t.same((await repos.knowledge.moduleArticleIds(f.refs['pricing-module']!)), []);
  t.equal((await f.req('GET', `${A}/articles/${pricing}`, { key: f.key('ada-key') })).status, 404);
  t.equal((await f.req('DELETE', `${A}/articles/${pricing}`, { user: 'eve' })).status, 404, 'a second delete finds nothing');
});

t.test('remove from a module and delete a module: domain authority; selections stop naming a deleted module', async (t) => {
  const { f, repos } = await world(t);
  const module = f.refs['pricing-module']!;
  const member = `${A}/knowledge-modules/${module}/articles/${f.refs.pricing}`;
  t.equal((await f.req('DELETE', member, { user: 'bob' })).status, 403, 'an operator');
  t.equal((await f.req('DELETE', member, { user: 'gina' })).status, 404);
  t.equal((await f.req('DELETE', member, { user: 'ed' })).status, 204, 'a domain editor');
  t.same((await repos.knowledge.moduleArticleIds(module)), []);
  t.ok((await repos.knowledge.article(f.refs.pricing!)), 'the article stays');
  t.equal((await f.req('DELETE', member, { user: 'ed' })).status, 404, 'no longer a member');

  const lookup = f.refs.lookup!;
  const selected = await f.req('PUT', `${A}/automations/${lookup}/knowledge-selection`, { key: f.key('ada-key') }, { mode: 'modules', moduleIds: [module] });
  t.equal(selected.status, 200);
  t.equal((await f.req('DELETE', `${A}/knowledge-modules/${module}`, { key: f.key('vic-key') })).status, 403);
  t.equal((await f.req('DELETE', `${A}/knowledge-modules/${module}`, { user: 'gina' })).status, 404);
  t.equal((await f.req('DELETE', `${A}/knowledge-modules/${module}`, { user: 'ada' })).status, 204);
  t.equal((await repos.knowledge.module(module)), undefined);
  t.same((await repos.automations.knowledgeSelection(lookup))!.moduleIds, [], 'the agent\'s selection no longer names it');
  t.equal((await f.req('GET', `${A}/knowledge-modules/${module}`, { key: f.key('ada-key') })).status, 404);
  t.equal((await f.req('DELETE', `${A}/knowledge-modules/not-an-id`, { user: 'ada' })).status, 404);
});
