// Storage contract, both drivers: knowledge bases, articles, modules, memberships and search (what FTS5 and tsvector agree on).
import t from 'tap';
import { constraintKind, isUniqueViolation } from '../../../storage/port/errors.js';
import { ftsQuery, searchTerms } from '../../../runtime/knowledge/search-terms.js';
import { contract, useStorageDrivers, type DriverUnderTest } from '../../helpers/storage-drivers.js';
import { FAR_FUTURE, seedWorkspace } from './seed.js';

const drivers = await useStorageDrivers(t);

/** org-1 base kb-1 with modules mod-1 and mod-2, org-2 base kb-2 with module mod-9. */
async function seedKnowledge(db: DriverUnderTest): Promise<void> {
  await seedWorkspace(db, { otherOrganization: true });
  const { knowledge } = db.repos;
  await knowledge.insertBase({ id: 'kb-1', orgId: 'org-1', domainId: 'dom-1', name: 'Help', createdAt: 1 });
  await knowledge.insertBase({ id: 'kb-2', orgId: 'org-2', domainId: null, name: 'Other', createdAt: 1 });
  await knowledge.insertModule({ id: 'mod-1', orgId: 'org-1', kind: 'org', domainId: null, name: 'Billing', description: null, createdAt: 1 });
  await knowledge.insertModule({ id: 'mod-2', orgId: 'org-1', kind: 'domain', domainId: 'dom-1', name: 'Account', description: 'Sign-in', createdAt: 2 });
  await knowledge.insertModule({ id: 'mod-9', orgId: 'org-2', kind: 'org', domainId: null, name: 'Theirs', description: null, createdAt: 1 });
}

const article = (id: string, title: string, draftBody: string | null, over: { baseId?: string; orgId?: string; createdAt?: number } = {}) => ({
  id,
  baseId: over.baseId ?? 'kb-1',
  orgId: over.orgId ?? 'org-1',
  title,
  draftBody,
  createdBy: 'u-1',
  createdAt: over.createdAt ?? 10,
  updatedAt: over.createdAt ?? 10,
});

contract(t, drivers, 'knowledge bases, modules and memberships: records back, updates, orders, idempotent membership, delete unselects the module', async (t, db) => {
  await seedKnowledge(db);
  const { knowledge } = db.repos;
  t.strictSame(await knowledge.base('kb-1'), { id: 'kb-1', orgId: 'org-1', domainId: 'dom-1', name: 'Help', createdAt: 1 });
  await knowledge.insertBase({ id: 'kb-0', orgId: 'org-1', domainId: null, name: 'Zero', createdAt: 1 });
  await knowledge.updateBase('kb-0', 'Renamed', 'dom-1');
  t.strictSame(await knowledge.base('kb-0'), { id: 'kb-0', orgId: 'org-1', domainId: 'dom-1', name: 'Renamed', createdAt: 1 });
  t.strictSame((await knowledge.basesOfOrganization('org-1')).map((b) => b.id), ['kb-0', 'kb-1']);
  t.equal(await knowledge.base('nope'), undefined);
  t.ok(isUniqueViolation(await knowledge.insertBase({ id: 'kb-1', orgId: 'org-1', domainId: null, name: 'x', createdAt: 1 }).catch((e: unknown) => e)));

  t.strictSame(await knowledge.module('mod-2'), { id: 'mod-2', orgId: 'org-1', kind: 'domain', domainId: 'dom-1', name: 'Account', description: 'Sign-in', createdAt: 2 });
  await knowledge.updateModule({ id: 'mod-2', kind: 'org', domainId: null, name: 'Accounts', description: null });
  t.strictSame(await knowledge.module('mod-2'), { id: 'mod-2', orgId: 'org-1', kind: 'org', domainId: null, name: 'Accounts', description: null, createdAt: 2 });
  t.equal(constraintKind(await knowledge.insertModule({ id: 'mod-bad', orgId: 'org-1', kind: 'domain', domainId: null, name: 'x', description: null, createdAt: 1 }).catch((e: unknown) => e)), 'check');
  t.strictSame((await knowledge.modulesOfOrganization('org-1')).map((m) => m.id), ['mod-1', 'mod-2']);

  await knowledge.insertArticle(article('art-1', 'One', 'Body'));
  await knowledge.insertArticle(article('art-2', 'Two', null));
  t.equal(await knowledge.addModuleArticle('mod-1', 'art-2', 5), true);
  t.equal(await knowledge.addModuleArticle('mod-1', 'art-1', 5), true);
  t.equal(await knowledge.addModuleArticle('mod-1', 'art-1', 6), false, 'already a member: nothing changes');
  t.strictSame(await knowledge.moduleArticle('mod-1', 'art-1'), { moduleId: 'mod-1', articleId: 'art-1', createdAt: 5 });
  t.equal(await knowledge.moduleArticle('mod-2', 'art-1'), undefined);
  t.strictSame(await knowledge.moduleArticleIds('mod-1'), ['art-1', 'art-2'], 'membership time, then article id');
  t.equal(await knowledge.removeModuleArticle('mod-1', 'art-2'), true);
  t.equal(await knowledge.removeModuleArticle('mod-1', 'art-2'), false);

  await db.exec(`
    INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES ('auto-2', 'org-1', 'dom-1', 'agent', 'Other', 1, 1);
    INSERT INTO knowledge_selections (automation_id, mode, module_ids) VALUES ('auto-1', 'modules', '["mod-1","mod-2","mod-1"]'), ('auto-2', 'org', '["mod-1"]');`);
  t.equal(await knowledge.deleteModule('mod-1'), true);
  t.equal(await knowledge.deleteModule('mod-1'), false);
  t.equal(await knowledge.module('mod-1'), undefined);
  t.equal(await knowledge.moduleArticle('mod-1', 'art-1'), undefined, 'memberships go with the module');
  const selections = await db.select('SELECT automation_id, module_ids FROM knowledge_selections ORDER BY automation_id');
  const moduleIds = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as unknown;
  t.strictSame(selections.map((s) => [s.automation_id, moduleIds(s.module_ids)]), [['auto-1', ['mod-2']], ['auto-2', ['mod-1']]], 'only selections by modules change');
});

contract(t, drivers, 'articles: drafts, publish and unpublish, keyset pages filtered by publication, delete', async (t, db) => {
  await seedKnowledge(db);
  const { knowledge } = db.repos;
  const draft = article('art-B', 'Refunds', 'Draft text', { createdAt: FAR_FUTURE });
  await knowledge.insertArticle({ ...draft, publishedBody: 'ignored', publishedAt: 1 } as typeof draft);
  t.strictSame(await knowledge.article('art-B'), { ...draft, publishedBody: null, publishedAt: null }, 'a new article is an unpublished draft');
  t.equal(await knowledge.article('nope'), undefined);
  t.ok(isUniqueViolation(await knowledge.insertArticle(draft).catch((e: unknown) => e)));
  t.equal(await knowledge.publishArticle('art-B', 50), true);
  t.equal(await knowledge.publishArticle('nope', 50), false);
  await knowledge.updateArticleDraft('art-B', 'Refunds v2', null, 60);
  t.strictSame(await knowledge.article('art-B'), { ...draft, title: 'Refunds v2', draftBody: null, publishedBody: 'Draft text', publishedAt: 50, updatedAt: 60 });
  t.equal(await knowledge.unpublishArticle('art-B', 70), true);
  t.equal(await knowledge.unpublishArticle('art-B', 71), false, 'not published any more');
  t.strictSame(await knowledge.article('art-B'), { ...draft, title: 'Refunds v2', draftBody: null, publishedBody: null, publishedAt: null, updatedAt: 70 });

  await knowledge.insertArticle(article('art-a', 'A', 'a', { createdAt: 5 }));
  await knowledge.insertArticle(article('art-0', 'Z', 'z', { createdAt: 5 }));
  await knowledge.insertArticle(article('art-c', 'C', 'c', { createdAt: 1 }));
  await knowledge.publishArticle('art-a', 80);
  await knowledge.publishArticle('art-B', 81);
  t.strictSame((await knowledge.articlesOfBase('kb-1')).map((a) => a.id), ['art-c', 'art-0', 'art-a', 'art-B']);
  const page = (published: boolean | null, after: { createdAt: number; id: string } | null, limit: number) =>
    knowledge.articlesOfBasePage('kb-1', published, after, limit).then((rows) => rows.map((a) => a.id));
  t.strictSame(await page(null, null, 2), ['art-c', 'art-0']);
  t.strictSame(await page(null, { createdAt: 5, id: 'art-0' }, 2), ['art-a', 'art-B']);
  t.strictSame(await page(true, null, 10), ['art-a', 'art-B'], 'published only');
  t.strictSame(await page(false, null, 10), ['art-c', 'art-0'], 'drafts only');
  t.strictSame(await page(null, { createdAt: FAR_FUTURE, id: 'art-B' }, 10), []);
  t.equal(await knowledge.deleteArticle('art-a'), true);
  t.equal(await knowledge.deleteArticle('art-a'), false);
  t.strictSame(await page(true, null, 10), ['art-B']);
});

contract(t, drivers, 'knowledge search: what both engines agree on (matches, stems, scoping to organization, publication and modules, limits as prefixes)', async (t, db) => {
  await seedKnowledge(db);
  const { knowledge } = db.repos;
  const q = (text: string) => ftsQuery(searchTerms(text))!;
  await knowledge.insertArticle(article('art-refund', 'Refund policy', 'Customers may request a refund within thirty days.'));
  await knowledge.insertArticle(article('art-ship', 'Shipping times', 'Orders ship in two days; refunds are handled by billing.'));
  await knowledge.insertArticle(article('art-reset', 'Password reset', 'Use the sign-in page to reset a forgotten password.'));
  await knowledge.insertArticle(article('art-draft', 'Refund draft', 'Refund refund refund.'));
  await knowledge.insertArticle(article('art-theirs', 'Refund elsewhere', 'Refund text of another organization.', { baseId: 'kb-2', orgId: 'org-2' }));
  for (const id of ['art-refund', 'art-ship', 'art-reset', 'art-theirs']) await knowledge.publishArticle(id, 20);
  for (const id of ['art-refund', 'art-ship', 'art-draft']) await knowledge.addModuleArticle('mod-1', id, 1);
  await knowledge.addModuleArticle('mod-2', 'art-reset', 1);
  await knowledge.addModuleArticle('mod-9', 'art-theirs', 1);

  const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((r) => r.id).sort();
  t.strictSame(ids(await knowledge.matchPublishedArticles('org-1', q('refund'), 10)), ['art-refund', 'art-ship'], '"refunds" stems to "refund"; drafts and other organizations are not searched');
  t.strictSame(ids(await knowledge.matchPublishedArticles('org-2', q('refund'), 10)), ['art-theirs']);
  t.strictSame(await knowledge.matchPublishedArticles('org-1', q('warranty'), 10), [], 'no article has the term');
  t.strictSame(ids(await knowledge.matchPublishedArticles('org-1', q('warranty or passwords?'), 10)), ['art-reset'], 'any of the terms, stemmed');
  t.equal((await knowledge.matchPublishedArticles('org-1', q('refund'), 1)).length, 1, 'the limit');

  const inModules = await knowledge.matchPublishedInModules('org-1', ['mod-1', 'mod-2'], q('refund password'), 10);
  t.strictSame(ids(inModules), ['art-refund', 'art-reset', 'art-ship']);
  t.ok(inModules.every((a, i) => typeof a.score === 'number' && (i === 0 || inModules[i - 1]!.score <= a.score)), 'best (lowest) score first');
  t.strictSame(inModules[0], { ...(await knowledge.article(inModules[0]!.id))!, score: inModules[0]!.score }, 'a whole article record with its score');
  const one = await knowledge.matchPublishedInModules('org-1', ['mod-1', 'mod-2'], q('refund password'), 1);
  t.strictSame(one.map((a) => a.id), [inModules[0]!.id], 'a shorter limit is a prefix of a longer one');
  t.strictSame(ids(await knowledge.matchPublishedInModules('org-1', ['mod-2'], q('refund password'), 10)), ['art-reset'], 'only the selected modules');
  t.strictSame(await knowledge.matchPublishedInModules('org-1', ['mod-9'], q('refund'), 10), [], 'another organization\'s module finds nothing here');
  t.strictSame(await knowledge.matchPublishedInModules('org-1', [], q('refund'), 10), []);

  await knowledge.updateArticleDraft('art-reset', 'Warranty terms', 'Warranty lasts a year.', 30);
  t.strictSame(await knowledge.matchPublishedArticles('org-1', q('warranty'), 10), [], 'an unpublished draft change is not searched');
  await knowledge.publishArticle('art-reset', 31);
  t.strictSame(ids(await knowledge.matchPublishedArticles('org-1', q('warranty'), 10)), ['art-reset'], 'republishing reindexes');
  t.strictSame(await knowledge.matchPublishedArticles('org-1', q('password'), 10), [], 'and drops the old text');
  await knowledge.unpublishArticle('art-refund', 40);
  t.strictSame(ids(await knowledge.matchPublishedArticles('org-1', q('refund'), 10)), ['art-ship'], 'unpublished: out of search');
  await knowledge.deleteArticle('art-ship');
  t.strictSame(await knowledge.matchPublishedArticles('org-1', q('refund'), 10), [], 'deleted: out of search');
});
