// knowledge.search: FTS5 bm25 ranking over the agent's selection, published text only, safe queries, best passages.
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { newId } from '../../../runtime/ids.js';
import { createKnowledgeSource, createKnowledgeToolProvider, searchAgentKnowledge } from '../../../runtime/knowledge/knowledge-search.tool.js';
import { bestPassage, chunks, PASSAGE_MAX } from '../../../runtime/knowledge/passages.js';
import { ftsQuery, searchTerms } from '../../../runtime/knowledge/search-terms.js';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import { openStore, type Store } from '../../../storage/store.js';
import { example, testKeyRing } from '../manifest/manifest-fixtures.js';

interface World {
  store: Store;
  refs: Record<string, string>;
  article(title: string, body: string, options?: { base?: string; publish?: boolean }): string;
  module(kind: 'org' | 'domain', domainRef?: string): string;
  join(moduleId: string, articleId: string): void;
  scope(agentRef: string): { orgId: string; domainId: string; automationId: string };
  select(agentRef: string, mode: 'none' | 'org' | 'domain' | 'modules', moduleIds?: string[]): void;
}

async function world(t: { teardown(fn: () => void): void }): Promise<World> {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
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
    article(title, body, options = {}) {
      const id = newId();
      knowledge.insertArticle({ id, baseId: options.base ?? refs.playbook, orgId: orgId, title, draftBody: body, createdBy: null, createdAt: 0, updatedAt: 0 });
      if (options.publish !== false) knowledge.publishArticle(id, clock.now());
      return id;
    },
    module(kind, domainRef) {
      const id = newId();
      knowledge.insertModule({ id, orgId: orgId, kind, domainId: domainRef ? refs[domainRef] : null, name: kind, description: null, createdAt: 0 });
      return id;
    },
    join: (moduleId, articleId) => void knowledge.addModuleArticle(moduleId, articleId, 0),
    scope(agentRef) {
      const row = automations.automation(refs[agentRef])!;
      return { orgId: row.orgId, domainId: row.domainId, automationId: row.id };
    },
    select(agentRef, mode, moduleIds = []) {
      automations.upsertKnowledgeSelection({ automationId: refs[agentRef], mode, moduleIds });
    },
  };
}

t.test('bm25 ranks articles matching more query terms first, and a title match above a body mention', async (t) => {
  const w = await world(t);
  const mod = w.module('org');
  const both = w.article('Returns', 'Refunds for returned hardware take 14 days.');
  const one = w.article('Hardware list', 'We sell hardware of many kinds and sizes.');
  const titled = w.article('Warranty', 'Covers two years.');
  const mentioned = w.article('Misc', 'Some words about the warranty in passing, among many other unrelated words here.');
  for (const id of [both, one, titled, mentioned]) w.join(mod, id);
  w.select('lookup', 'org');
  const scope = w.scope('lookup');
  t.same((await searchAgentKnowledge(w.store.repos, scope, 'refunds for hardware')).map((h) => h.articleId).slice(0, 2), [both, one]);
  t.same((await searchAgentKnowledge(w.store.repos, scope, 'warranty')).map((h) => h.articleId), [titled, mentioned]);
  t.equal((await searchAgentKnowledge(w.store.repos, scope, 'warranty', 1)).length, 1, 'limit');
  t.same((await searchAgentKnowledge(w.store.repos, scope, 'refund'))[0].articleId, both, 'porter stemming: refund finds refunds');
});

t.test('only published text is searched: unpublished articles and later draft edits are invisible', async (t) => {
  const w = await world(t);
  const mod = w.module('org');
  const published = w.article('Shipping', 'Parcels ship on Mondays.');
  const draft = w.article('Secret', 'Parcels ship on Fridays soon.', { publish: false });
  w.join(mod, published);
  w.join(mod, draft);
  w.store.repos.knowledge.updateArticleDraft(published, 'Shipping', 'Parcels ship on Tuesdays.', 1);
  w.select('lookup', 'org');
  const hits = await searchAgentKnowledge(w.store.repos, w.scope('lookup'), 'parcels ship');
  t.same(hits.map((h) => h.passage), ['Parcels ship on Mondays.']);
  t.same(await searchAgentKnowledge(w.store.repos, w.scope('lookup'), 'tuesdays'), []);
});

t.test('the selection decides the modules: none, org, domain (its own plus the organization\'s), modules (visible ones only)', async (t) => {
  const w = await world(t);
  const orgModule = w.module('org');
  const salesModule = w.module('domain', 'sales');
  const supportModule = w.module('domain', 'support');
  const inOrg = w.article('Alpha policy', 'alpha');
  const inSales = w.article('Alpha sales', 'alpha');
  const inSupport = w.article('Alpha support', 'alpha');
  w.join(orgModule, inOrg);
  w.join(salesModule, inSales);
  w.join(supportModule, inSupport);
  const found = async (agent: string) => (await searchAgentKnowledge(w.store.repos, w.scope(agent), 'alpha', 20)).map((h) => h.articleId).sort();

  w.select('lookup', 'none');
  t.same(await found('lookup'), []);
  w.select('lookup', 'org');
  t.same(await found('lookup'), [inOrg]);
  w.select('lookup', 'domain');
  t.same(await found('lookup'), [inOrg, inSales].sort());
  w.select('helper', 'domain');
  t.same(await found('helper'), [inOrg, inSupport].sort());
  w.select('lookup', 'modules', [salesModule, supportModule]);
  t.same(await found('lookup'), [inSales], 'a stored module that is not visible to the agent is ignored');
  w.store.repos.knowledge.updateModule({ id: salesModule, kind: 'domain', domainId: w.refs.support, name: 'moved', description: null });
  t.same(await found('lookup'), [], 'a module moved to another domain stops serving the agent');
});

t.test('user text never reaches MATCH as syntax', async (t) => {
  const w = await world(t);
  const mod = w.module('org');
  const id = w.article('Quotes', 'He said "near" and star.');
  w.join(mod, id);
  w.select('lookup', 'org');
  for (const query of ['"unbalanced', 'NEAR(a b', 'star*', 'title:quotes', '-star AND OR', '^near']) {
    await t.resolves(async () => searchAgentKnowledge(w.store.repos, w.scope('lookup'), query), query);
  }
  t.same((await searchAgentKnowledge(w.store.repos, w.scope('lookup'), 'title:near'))[0]?.articleId, id, 'operators become plain terms');
  t.same(await searchAgentKnowledge(w.store.repos, w.scope('lookup'), '?!'), [], 'no terms, no search');
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
  const scope = { ...w.scope('lookup'), sessionId: newId(), executionId: newId() };
  w.select('lookup', 'none');
  t.same(await provider.tools({ ...scope, inBelt: false }), []);
  t.same((await provider.tools({ ...scope, inBelt: true })).map((tool) => tool.name), ['knowledge.search']);
  w.select('lookup', 'domain');
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
  w.select('lookup', 'org');
  const mod = w.module('org');
  w.join(mod, w.article('Refund policy', 'Refunds take 14 days.'));
  const source = createKnowledgeSource({ store: w.store });
  const provider = createKnowledgeToolProvider({ store: w.store });
  const signal = new AbortController().signal;
  const titles = async (scope: Parameters<typeof source.select>[0], query: string, limit?: number) => {
    const result = await provider.execute({ toolName: 'knowledge.search', args: { query, ...(limit ? { limit } : {}) }, scope, signal });
    return ((result as { output: { results: Array<{ title: string }> } }).output.results.map((r) => r.title)).sort();
  };
  const run = { ...w.scope('lookup'), sessionId: newId(), executionId: newId() };
  t.same((await source.select(run, 'refund days')).map((s) => s.title), ['Refund policy']);
  // Published after the selection: only a search run after it can see this one.
  w.join(mod, w.article('Refund exceptions', 'Some refunds take longer than 14 days.'));
  t.same(await titles(run, 'refund days'), ['Refund policy'], 'the first call reuses the selection\'s hits');
  t.same(await titles(run, 'refund days'), ['Refund exceptions', 'Refund policy'], 'a second call searches afresh');

  await source.select(run, 'refund days');
  t.same(await titles({ ...run }, 'refund days'), ['Refund exceptions', 'Refund policy'], 'another run (a new scope object) never sees them');
  t.same(await titles(run, 'refund'), ['Refund exceptions', 'Refund policy'], 'a different query searches (and ends the reuse)');
  await source.select(run, 'refund days');
  w.join(mod, w.article('Refund form', 'Refund requests need the form within 14 days.'));
  t.same(await titles(run, 'refund days', 10), ['Refund exceptions', 'Refund form', 'Refund policy'], 'a limit above the held hits searches');
});
