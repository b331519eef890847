// knowledge.search (on the test storage mode's engine): ranking over the agent's selection, published text only, safe queries, best passages.
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { newId } from '../../../runtime/ids.js';
import { createKnowledgeSource, createKnowledgeToolProvider, searchAgentKnowledge } from '../../../runtime/knowledge/knowledge-search.tool.js';
import { bestPassage, chunks, PASSAGE_MAX } from '../../../runtime/knowledge/passages.js';
import { ftsQuery, searchTerms } from '../../../runtime/knowledge/search-terms.js';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import type { Storage } from '../../../storage/port/storage.js';
import { testStorage } from '../../helpers/test-database.js';
import { openTestStore } from '../../helpers/test-store.js';
import { example, testKeyRing } from '../manifest/manifest-fixtures.js';

interface World {
  store: Storage;
  refs: Record<string, string>;
  article(title: string, body: string, options?: { base?: string; publish?: boolean }): Promise<string>;
  module(kind: 'org' | 'domain', domainRef?: string): Promise<string>;
  join(moduleId: string, articleId: string): Promise<void>;
  scope(agentRef: string): Promise<{ orgId: string; domainId: string; automationId: string }>;
  select(agentRef: string, mode: 'none' | 'org' | 'domain' | 'modules', moduleIds?: string[]): Promise<void>;
}

async function world(t: { teardown(fn: () => void): void }): Promise<World> {
  const { store } = await openTestStore(t);
  const manifest = example();
  manifest.organizations[0].domains.push({ ref: 'support', name: 'Support', members: [] });
  manifest.organizations[0].agents.push({
    ref: 'helper',
    domain: 'support',
    name: 'Support helper',
    setup: { principles: '', procedure: 'Use #knowledge.search.', model: 'builtin:procedure', approvalTools: [] },
    publish: true,
  });
  const clock = new ManualClock();
  const { refs } = await applyManifest(store, manifest, { clock, keyRing: testKeyRing() });
  const { knowledge, automations } = store.repos;
  const orgId = refs.acme;
  return {
    store,
    refs,
    async article(title, body, options = {}) {
      const id = newId();
      await knowledge.insertArticle({ id, baseId: options.base ?? refs.playbook, orgId: orgId, title, draftBody: body, createdBy: null, createdAt: 0, updatedAt: 0 });
      if (options.publish !== false) await knowledge.publishArticle(id, clock.now());
      return id;
    },
    async module(kind, domainRef) {
      const id = newId();
      await knowledge.insertModule({ id, orgId: orgId, kind, domainId: domainRef ? refs[domainRef] : null, name: kind, description: null, createdAt: 0 });
      return id;
    },
    join: async (moduleId, articleId) => void (await knowledge.addModuleArticle(moduleId, articleId, 0)),
    async scope(agentRef) {
      const row = (await automations.automation(refs[agentRef]))!;
      return { orgId: row.orgId, domainId: row.domainId, automationId: row.id };
    },
    async select(agentRef, mode, moduleIds = []) {
      await automations.upsertKnowledgeSelection({ automationId: refs[agentRef], mode, moduleIds });
    },
  };
}

t.test('bm25 ranks articles matching more query terms first, and a title match above a body mention', async (t) => {
  const w = await world(t);
  const mod = await w.module('org');
  const both = await w.article('Returns', 'Refunds for returned hardware take 14 days.');
  const one = await w.article('Hardware list', 'We sell hardware of many kinds and sizes.');
  const titled = await w.article('Warranty', 'Covers two years.');
  const mentioned = await w.article('Misc', 'Some words about the warranty in passing, among many other unrelated words here.');
  for (const id of [both, one, titled, mentioned]) await w.join(mod, id);
  await w.select('lookup', 'org');
  const scope = await w.scope('lookup');
  const top = (await searchAgentKnowledge(w.store.repos, scope, 'refunds for hardware')).map((h) => h.articleId).slice(0, 2);
  t.same([...top].sort(), [both, one].sort(), 'the two articles with query terms lead');
  // bm25 (SQLite) puts more matched terms first; PostgreSQL's ts_rank weighs the title match higher (decision
  // "PostgreSQL repositories: credentials, webhooks, integrations, knowledge…": orders may differ between drivers).
  if (testStorage === 'sqlite') t.same(top, [both, one], 'SQLite bm25: the article matching more query terms first');
  t.same((await searchAgentKnowledge(w.store.repos, scope, 'warranty')).map((h) => h.articleId), [titled, mentioned]);
  t.equal((await searchAgentKnowledge(w.store.repos, scope, 'warranty', 1)).length, 1, 'limit');
  t.same((await searchAgentKnowledge(w.store.repos, scope, 'refund'))[0].articleId, both, 'porter stemming: refund finds refunds');
});

t.test('only published text is searched: unpublished articles and later draft edits are invisible', async (t) => {
  const w = await world(t);
  const mod = await w.module('org');
  const published = await w.article('Shipping', 'Parcels ship on Mondays.');
  const draft = await w.article('Secret', 'Parcels ship on Fridays soon.', { publish: false });
  await w.join(mod, published);
  await w.join(mod, draft);
  await w.store.repos.knowledge.updateArticleDraft(published, 'Shipping', 'Parcels ship on Tuesdays.', 1);
  await w.select('lookup', 'org');
  const hits = await searchAgentKnowledge(w.store.repos, await w.scope('lookup'), 'parcels ship');
  t.same(hits.map((h) => h.passage), ['Parcels ship on Mondays.']);
  t.same(await searchAgentKnowledge(w.store.repos, await w.scope('lookup'), 'tuesdays'), []);
});

t.test('the selection decides the modules: none, org, domain (its own plus the organization\'s), modules (visible ones only)', async (t) => {
  const w = await world(t);
  const orgModule = await w.module('org');
  const salesModule = await w.module('domain', 'sales');
  const supportModule = await w.module('domain', 'support');
  const inOrg = await w.article('Alpha policy', 'alpha');
  const inSales = await w.article('Alpha sales', 'alpha');
  const inSupport = await w.article('Alpha support', 'alpha');
  await w.join(orgModule, inOrg);
  await w.join(salesModule, inSales);
  await w.join(supportModule, inSupport);
  const found = async (agent: string) => (await searchAgentKnowledge(w.store.repos, await w.scope(agent), 'alpha', 20)).map((h) => h.articleId).sort();

  await w.select('lookup', 'none');
  t.same(await found('lookup'), []);
  await w.select('lookup', 'org');
  t.same(await found('lookup'), [inOrg]);
  await w.select('lookup', 'domain');
  t.same(await found('lookup'), [inOrg, inSales].sort());
  await w.select('helper', 'domain');
  t.same(await found('helper'), [inOrg, inSupport].sort());
  await w.select('lookup', 'modules', [salesModule, supportModule]);
  t.same(await found('lookup'), [inSales], 'a stored module that is not visible to the agent is ignored');
  await w.store.repos.knowledge.updateModule({ id: salesModule, kind: 'domain', domainId: w.refs.support, name: 'moved', description: null });
  t.same(await found('lookup'), [], 'a module moved to another domain stops serving the agent');
});

t.test('user text never reaches MATCH as syntax', async (t) => {
  const w = await world(t);
  const mod = await w.module('org');
  const id = await w.article('Quotes', 'He said "near" and star.');
  await w.join(mod, id);
  await w.select('lookup', 'org');
  for (const query of ['"unbalanced', 'NEAR(a b', 'star*', 'title:quotes', '-star AND OR', '^near']) {
    await t.resolves(async () => searchAgentKnowledge(w.store.repos, await w.scope('lookup'), query), query);
  }
  t.same((await searchAgentKnowledge(w.store.repos, await w.scope('lookup'), 'title:near'))[0]?.articleId, id, 'operators become plain terms');
  t.same(await searchAgentKnowledge(w.store.repos, await w.scope('lookup'), '?!'), [], 'no terms, no search');
});

t.test('search terms and the FTS5 query', async (t) => {
  t.same(searchTerms('Refund, REFUND; refunds — Café 2024'), ['refund', 'refunds', 'café', '2024']);
  t.equal(searchTerms(Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ')).length, 32);
  t.equal(ftsQuery(['a', 'b']), '"a" OR "b"');
  t.equal(ftsQuery([]), null);
});

t.test('passages: paragraphs, long ones packed by sentence; the best one has the most query terms', async (t) => {
  const body = `Intro paragraph about nothing.\n\nRefunds are accepted within 45 days.\n\n${'Filler sentence here. '.repeat(60)}`;
  const pieces = chunks(body);
  t.equal(pieces[0], 'Intro paragraph about nothing.');
  t.ok(pieces.every((p) => p.length <= PASSAGE_MAX), 'every piece fits');
  t.ok(pieces.length > 3, 'the long paragraph was split');
  t.equal(bestPassage(body, 'how many days for refunds'), 'Refunds are accepted within 45 days.');
  t.equal(bestPassage(body, 'zebra'), 'Intro paragraph about nothing.', 'no term matches: the opening');
  t.equal(bestPassage('', 'x'), '');
  t.equal(chunks('x'.repeat(PASSAGE_MAX * 2 + 5)).length, 3, 'a sentence longer than a passage is cut');
});

t.test('the tool provider offers knowledge.search when referenced or selected, and answers a ToolResult', async (t) => {
  const w = await world(t);
  const provider = createKnowledgeToolProvider({ store: w.store });
  const scope = { ...await w.scope('lookup'), sessionId: newId(), executionId: newId() };
  await w.select('lookup', 'none');
  t.same(await provider.tools({ ...scope, inBelt: false }), []);
  t.same((await provider.tools({ ...scope, inBelt: true })).map((tool) => tool.name), ['knowledge.search']);
  await w.select('lookup', 'domain');
  t.same((await provider.tools({ ...scope, inBelt: false })).map((tool) => tool.name), ['knowledge.search']);
  const result = await provider.execute({ toolName: 'knowledge.search', args: { query: 'enterprise seats' }, scope, signal: new AbortController().signal });
  t.match(result, { ok: true, status: 200, files: [] });
  t.same((result as { output: any }).output.results.map((r: any) => [r.title, r.passage]), [['Pricing tiers', 'Enterprise starts at 50 seats.']]);
  const aborted = new AbortController();
  aborted.abort();
  const cancelled = await provider.execute({ toolName: 'knowledge.search', args: { query: 'x' }, scope, signal: aborted.signal });
  t.match(cancelled, { ok: false, code: 'TOOL_CANCELLED' });
});

t.test('a run\'s prompt selection serves its first knowledge.search with the same query once, and only that run', async (t) => {
  const w = await world(t);
  await w.select('lookup', 'org');
  const mod = await w.module('org');
  await w.join(mod, await w.article('Refund policy', 'Refunds take 14 days.'));
  const source = createKnowledgeSource({ store: w.store });
  const provider = createKnowledgeToolProvider({ store: w.store });
  const signal = new AbortController().signal;
  const titles = async (scope: Parameters<typeof source.select>[0], query: string, limit?: number) => {
    const result = await provider.execute({ toolName: 'knowledge.search', args: { query, ...(limit ? { limit } : {}) }, scope, signal });
    return ((result as { output: { results: Array<{ title: string }> } }).output.results.map((r) => r.title)).sort();
  };
  const run = { ...await w.scope('lookup'), sessionId: newId(), executionId: newId() };
  t.same((await source.select(run, 'refund days')).map((s) => s.title), ['Refund policy']);
  // Published after the selection: only a search run after it can see this one.
  await w.join(mod, await w.article('Refund exceptions', 'Some refunds take longer than 14 days.'));
  t.same(await titles(run, 'refund days'), ['Refund policy'], 'the first call reuses the selection\'s hits');
  t.same(await titles(run, 'refund days'), ['Refund exceptions', 'Refund policy'], 'a second call searches afresh');

  await source.select(run, 'refund days');
  t.same(await titles({ ...run }, 'refund days'), ['Refund exceptions', 'Refund policy'], 'another run (a new scope object) never sees them');
  t.same(await titles(run, 'refund'), ['Refund exceptions', 'Refund policy'], 'a different query searches (and ends the reuse)');
  await source.select(run, 'refund days');
  await w.join(mod, await w.article('Refund form', 'Refund requests need the form within 14 days.'));
  t.same(await titles(run, 'refund days', 10), ['Refund exceptions', 'Refund form', 'Refund policy'], 'a limit above the held hits searches');
});
