// Storage contract, both drivers: webhook endpoints, deliveries, attempts and run notices; knowledge bases, articles, modules and search.
import t from 'tap';
import { constraintKind, isUniqueViolation } from '../../../storage/port/errors.js';
import type { WebhookDelivery, WebhookEndpoint } from '../../../storage/records/webhooks.js';
import { ftsQuery, searchTerms } from '../../../runtime/knowledge/search-terms.js';
import { contract, useStorageDrivers, type DriverUnderTest } from '../../helpers/storage-drivers.js';
import { FAR_FUTURE, organization, seedWorkspace } from './seed.js';

const drivers = await useStorageDrivers(t);

const endpoint = (id: string, over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id,
  orgId: 'org-1',
  url: `https://hooks.example.com/${id}`,
  secretSealed: Buffer.from([1, 0, 255, 7]),
  events: ['trigger.run.settled'],
  active: true,
  createdBy: 'u-1',
  createdAt: 10,
  ...over,
});

const delivery = (id: string, over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id,
  endpointId: 'ep-1',
  eventType: 'trigger.run.settled',
  payload: '{"z":1,"a":{"b":[2,1]}}',
  status: 'pending',
  attempts: 0,
  nextAttemptAt: 10,
  lastStatus: null,
  lastError: null,
  createdAt: 10,
  updatedAt: 10,
  runId: null,
  ...over,
});

contract(t, drivers, 'webhook endpoints: every field back (sealed bytes, events in order, booleans), active lists, organizations with endpoints', async (t, db) => {
  await seedWorkspace(db);
  await db.repos.tenancy.insertOrganization(organization('org-2'));
  const { webhooks } = db.repos;
  t.equal(await webhooks.hasActiveEndpoints('org-1'), false);
  const first = endpoint('ep-B', { events: ['session.completed', 'approval.requested', 'a'], createdAt: FAR_FUTURE, createdBy: null });
  await webhooks.insertEndpoint(first);
  t.strictSame(await webhooks.endpoint('ep-B'), first, 'event types in the order written');
  t.ok(Buffer.isBuffer((await webhooks.endpoint('ep-B'))!.secretSealed));
  t.equal(await webhooks.endpoint('nope'), undefined);
  await webhooks.insertEndpoint(endpoint('ep-a', { createdAt: 5, active: false }));
  await webhooks.insertEndpoint(endpoint('ep-0', { createdAt: 5, events: [] }));
  await webhooks.insertEndpoint(endpoint('ep-x', { orgId: 'org-2', createdAt: 3, active: false }));
  t.ok(isUniqueViolation(await webhooks.insertEndpoint(endpoint('ep-a')).catch((e: unknown) => e)));
  t.equal(constraintKind(await webhooks.insertEndpoint(endpoint('ep-y', { orgId: 'org-none' })).catch((e: unknown) => e)), 'foreign_key');

  t.strictSame((await webhooks.endpointsOfOrganization('org-1')).map((e) => e.id), ['ep-0', 'ep-a', 'ep-B'], 'creation time, then id in byte order');
  t.strictSame((await webhooks.activeEndpoints('org-1')).map((e) => [e.id, e.active, e.events]), [['ep-0', true, []], ['ep-B', true, first.events]]);
  t.equal((await webhooks.endpoint('ep-a'))!.active, false);
  t.equal(await webhooks.hasActiveEndpoints('org-1'), true);
  t.equal(await webhooks.hasActiveEndpoints('org-2'), false, 'an inactive endpoint does not count');
  t.strictSame(await webhooks.organizationsWithEndpoints(), [{ orgId: 'org-1', since: 5 }], 'the oldest active endpoint');

  t.equal(await webhooks.deleteEndpoint('ep-0'), true);
  t.equal(await webhooks.deleteEndpoint('ep-0'), false);
  t.strictSame(await webhooks.organizationsWithEndpoints(), [{ orgId: 'org-1', since: FAR_FUTURE }]);
});

contract(t, drivers, 'webhook deliveries: payload text verbatim, attempts recorded with their delivery, newest-first pages, cascade on delete', async (t, db) => {
  await seedWorkspace(db);
  const { webhooks } = db.repos;
  await webhooks.insertEndpoint(endpoint('ep-1'));
  await webhooks.insertEndpoint(endpoint('ep-2'));
  // Whitespace, key order and escapes as signed: the text is sent again byte for byte.
  const payload = '{ "z": 1,\n  "a": "caf\\u00e9 \u2028", "n": null }';
  const d1 = delivery('del-1', { payload, createdAt: FAR_FUTURE, updatedAt: FAR_FUTURE, runId: 'run-x', nextAttemptAt: FAR_FUTURE });
  await webhooks.insertDelivery(d1);
  t.strictSame(await webhooks.delivery('del-1'), d1);
  t.equal(await webhooks.delivery('nope'), undefined);
  t.ok(isUniqueViolation(await webhooks.insertDelivery(d1).catch((e: unknown) => e)));
  for (const [id, createdAt] of [['del-B', 5], ['del-a', 5], ['del-0', 7], ['del-c', 1]] as const) {
    await webhooks.insertDelivery(delivery(id, { createdAt, updatedAt: createdAt }));
  }
  await webhooks.insertDelivery(delivery('del-other', { endpointId: 'ep-2' }));

  const outcome = { id: 'del-B', status: 'failed' as const, attempts: 1, nextAttemptAt: null, lastStatus: 500, lastError: 'HTTP 500', updatedAt: 20 };
  await webhooks.recordAttempt(outcome, { deliveryId: 'del-B', attempt: 1, attemptedAt: 19, statusCode: 500, error: 'HTTP 500', durationMs: 120 });
  await webhooks.recordAttempt({ ...outcome, id: 'del-a', status: 'delivered', lastStatus: 204, lastError: null }, {
    deliveryId: 'del-a', attempt: 2, attemptedAt: 18, statusCode: 204, error: null, durationMs: 3,
  });
  await webhooks.recordAttempt({ ...outcome, id: 'del-a' }, { deliveryId: 'del-a', attempt: 1, attemptedAt: 17, statusCode: null, error: 'timeout', durationMs: 10_000 });
  t.strictSame(await webhooks.delivery('del-B'), { ...delivery('del-B', { createdAt: 5 }), ...outcome });
  t.strictSame((await webhooks.pendingDeliveryIds('ep-1')).sort(), ['del-0', 'del-1', 'del-c']);
  t.strictSame(await webhooks.pendingDeliveryIds('ep-none'), []);
  t.strictSame(
    (await webhooks.attemptsOf(['del-a', 'del-B', 'del-none'])).map((a) => [a.deliveryId, a.attempt, a.statusCode, a.error, a.durationMs]),
    [['del-B', 1, 500, 'HTTP 500', 120], ['del-a', 1, null, 'timeout', 10_000], ['del-a', 2, 204, null, 3]],
    'by delivery id in byte order, then attempt number',
  );
  t.strictSame(await webhooks.attemptsOf([]), []);
  const duplicate = await webhooks.recordAttempt(outcome, { deliveryId: 'del-B', attempt: 1, attemptedAt: 30, statusCode: 500, error: null, durationMs: 1 }).catch((e: unknown) => e);
  t.ok(isUniqueViolation(duplicate), 'one row per attempt number');

  const pages: string[][] = [];
  let before: { createdAt: number; id: string } | null = null;
  for (;;) {
    const page = await webhooks.deliveriesPage('ep-1', before, 2);
    if (page.length === 0) break;
    pages.push(page.map((d) => d.id));
    before = { createdAt: page[page.length - 1]!.createdAt, id: page[page.length - 1]!.id };
  }
  t.strictSame(pages, [['del-1', 'del-0'], ['del-a', 'del-B'], ['del-c']], 'newest first, ties by id descending in byte order');

  t.equal(await webhooks.deleteEndpoint('ep-1'), true);
  t.equal(await webhooks.delivery('del-a'), undefined, 'deliveries go with their endpoint');
  t.strictSame(await webhooks.attemptsOf(['del-a', 'del-B']), [], 'and their attempt log');
  t.ok(await webhooks.delivery('del-other'));
});

/** Runs of trg-1 (org-1) and one firing's results over sessions ses-1 (two executions) and ses-2 (none). */
async function seedRuns(db: DriverUnderTest): Promise<void> {
  await seedWorkspace(db);
  const results = JSON.stringify([
    { automationId: 'auto-1', position: 0, status: 'started', sessionId: 'ses-1' },
    { automationId: 'auto-2', position: 1, status: 'skipped', code: 'not_entitled' },
    { automationId: 'auto-3', position: 2, status: 'started', sessionId: 'ses-2' },
  ]);
  await db.exec(`
    INSERT INTO sessions (id, org_id, domain_id, automation_id, visibility, created_at, updated_at) VALUES ('ses-2', 'org-1', 'dom-1', 'auto-1', 'domain', 1, 1);
    INSERT INTO executions (id, session_id, position, status, error_code, created_at, updated_at, settled_at) VALUES
      ('ex-2', 'ses-1', 1, 'running', NULL, 2, 2, NULL),
      ('ex-1', 'ses-1', 0, 'failed', 'model_error', 1, 1, ${FAR_FUTURE});
    INSERT INTO trigger_runs (id, trigger_id, org_id, source, outcome, created_at, results) VALUES
      ('run-1', 'trg-1', 'org-1', 'api', 'partial', 100, '${results}'),
      ('run-B', 'trg-1', 'org-1', 'api', 'succeeded', 200, '[]'),
      ('run-a', 'trg-1', 'org-1', 'api', 'succeeded', 200, '[]'),
      ('run-0', 'trg-1', 'org-1', 'api', 'succeeded', 50, '[]');`);
}

contract(t, drivers, 'webhook run notices: announced once, unannounced runs since a time in order; a run\'s subscribers with their first execution', async (t, db) => {
  await seedRuns(db);
  const { webhooks } = db.repos;
  t.strictSame(await webhooks.unannouncedRuns('org-1', 100, 10), ['run-1', 'run-B', 'run-a'], 'since 100 inclusive, by time then id in byte order');
  t.strictSame(await webhooks.unannouncedRuns('org-1', 0, 2), ['run-0', 'run-1'], 'the limit');
  t.equal(await webhooks.insertRunNotice('run-1', 'org-1', 300), true);
  t.equal(await webhooks.insertRunNotice('run-1', 'org-1', 301), false, 'already announced');
  t.equal(constraintKind(await webhooks.insertRunNotice('run-none', 'org-1', 1).catch((e: unknown) => e)), 'foreign_key', 'only the duplicate is swallowed');
  t.strictSame(await webhooks.unannouncedRuns('org-1', 100, 10), ['run-B', 'run-a']);
  t.strictSame(await webhooks.unannouncedRuns('org-2', 0, 10), []);

  t.strictSame(await webhooks.runState('run-1'), [
    { automationId: 'auto-1', position: 0, startStatus: 'started', code: null, sessionId: 'ses-1', executionStatus: 'failed', errorCode: 'model_error', settledAt: FAR_FUTURE },
    { automationId: 'auto-2', position: 1, startStatus: 'skipped', code: 'not_entitled', sessionId: null, executionStatus: null, errorCode: null, settledAt: null },
    { automationId: 'auto-3', position: 2, startStatus: 'started', code: null, sessionId: 'ses-2', executionStatus: null, errorCode: null, settledAt: null },
  ], 'results order, the session\'s first execution, integers as numbers');
  t.strictSame(await webhooks.runState('run-B'), []);
  t.strictSame(await webhooks.runState('nope'), []);
});

/** org-1 base kb-1 with modules mod-1 and mod-2, org-2 base kb-2 with module mod-9. */
async function seedKnowledge(db: DriverUnderTest): Promise<void> {
  await seedWorkspace(db);
  const { tenancy, knowledge } = db.repos;
  await tenancy.insertOrganization(organization('org-2'));
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
