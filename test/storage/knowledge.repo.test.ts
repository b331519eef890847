import t from 'tap';
import { openStore } from '../../storage/store.js';

function seeded() {
  const store = openStore({ path: ':memory:' });
  const { tenancy, knowledge } = store.repos;
  tenancy.insertOrganization({ id: 'org', name: 'Org', partnerId: null, clientSegment: null, directLoginDisabled: false, rolloutFlags: {}, createdAt: 1, suspendedAt: null });
  knowledge.insertBase({ id: 'base', orgId: 'org', domainId: null, name: 'Base', createdAt: 1 });
  const article = (id: string, title: string, body: string) =>
    knowledge.insertArticle({ id, baseId: 'base', orgId: 'org', title, draftBody: body, createdBy: null, createdAt: 1, updatedAt: 1 });
  article('a1', 'Pricing', 'Enterprise starts at fifty seats.');
  article('a2', 'Refunds', 'Refunds within thirty days.');
  return { store, knowledge };
}

t.test('only published text is searchable; a draft edit does not change what is indexed', async (t) => {
  const { store, knowledge } = seeded();
  t.teardown(() => store.close());
  t.same(knowledge.matchPublishedArticles('org', 'seats', 10), []);
  t.ok(knowledge.publishArticle('a1', 5));
  t.same(knowledge.matchPublishedArticles('org', 'seats', 10).map((a) => a.id), ['a1']);
  knowledge.updateArticleDraft('a1', 'Pricing', 'Enterprise starts at hundred users.', 6);
  t.same(knowledge.matchPublishedArticles('org', 'users', 10), [], 'the draft is not indexed');
  t.equal(knowledge.article('a1')!.publishedBody, 'Enterprise starts at fifty seats.');
  knowledge.publishArticle('a1', 7);
  t.same(knowledge.matchPublishedArticles('org', 'users', 10).map((a) => a.id), ['a1']);
  t.same(knowledge.matchPublishedArticles('org', 'seats', 10), [], 're-publishing replaced the indexed text');
  t.equal((store.db.prepare('SELECT count(*) AS n FROM article_fts_rows').get() as { n: number }).n, 1, 'one stable index row per article');
  t.notOk(knowledge.publishArticle('missing', 8));
});

t.test('deleting an article (or its base) removes its index entry', async (t) => {
  const { store, knowledge } = seeded();
  t.teardown(() => store.close());
  knowledge.publishArticle('a1', 2);
  knowledge.publishArticle('a2', 2);
  t.ok(knowledge.deleteArticle('a1'));
  t.same(knowledge.matchPublishedArticles('org', 'seats', 10), []);
  t.same(knowledge.matchPublishedArticles('org', 'refunds', 10).map((a) => a.id), ['a2']);
  store.db.prepare('DELETE FROM knowledge_bases WHERE id = ?').run('base');
  t.equal((store.db.prepare("SELECT count(*) AS n FROM articles_fts WHERE articles_fts MATCH 'refunds'").get() as { n: number }).n, 0, 'cascade reached the index');
});

t.test('module memberships are idempotent', async (t) => {
  const { store, knowledge } = seeded();
  t.teardown(() => store.close());
  knowledge.insertModule({ id: 'm', orgId: 'org', kind: 'org', domainId: null, name: 'M', description: null, createdAt: 1 });
  knowledge.addModuleArticle('m', 'a2', 3);
  knowledge.addModuleArticle('m', 'a1', 4);
  knowledge.addModuleArticle('m', 'a2', 5);
  t.same(knowledge.moduleArticleIds('m'), ['a2', 'a1']);
});
