// Owns the built-in `knowledge.search` tool: bm25-ranked published articles of the agent's selection (a flow: its domain's), best passage each.
import type { Awaitable, Storage } from '../../storage/port/storage.js';
import type { KnowledgeSnippet } from '../models/model.js';
import { KNOWLEDGE_INTEGRATION, KNOWLEDGE_INTEGRATION_ID } from '../tools/builtin-knowledge.integration.js';
import type { ToolResult } from '../tools/tool-result.js';
import type { KnowledgeSource, ToolCallScope, ToolProvider } from '../tools/tool-providers.js';
import { modulesOfSelection, NO_SELECTION, parseSelection, type StoredSelection } from './knowledge-visibility.js';
import { nowOrLater } from './now-or-later.js';
import { bestPassage } from './passages.js';
import { ftsQuery, searchTerms } from './search-terms.js';

export const DEFAULT_RESULTS = 5;
export const MAX_RESULTS = 20;
/** Passages put into the system prompt up front (the tool serves the rest on demand). */
export const PROMPT_SNIPPETS = 3;

export interface KnowledgeHit {
  readonly title: string;
  readonly passage: string;
  readonly articleId: string;
}

/** Which agent is searching: its organization, domain and id (the selection is read live, not frozen in a revision). */
export type AgentScope = Pick<ToolCallScope, 'orgId' | 'domainId' | 'automationId'>;

export type KnowledgeRepos = Pick<Storage['repos'], 'automations' | 'knowledge'>;

/** The selection's published articles matching `query`, best first; empty for selection `none` or a query without terms. */
export function searchAgentKnowledge(repos: KnowledgeRepos, scope: AgentScope, query: string, limit = DEFAULT_RESULTS): Awaitable<KnowledgeHit[]> {
  return nowOrLater(modulesOfAgent(repos, scope), (moduleIds) => hitsIn(repos, scope.orgId, moduleIds, query, clampLimit(limit)));
}

/** Answers now when storage does and the cache holds the answer (SQLite), later otherwise: always `await` it. */
export type AgentKnowledgeSearch = (scope: AgentScope, query: string, limit?: number) => Awaitable<readonly KnowledgeHit[]>;

/** Answers held at most: each is ≤ MAX_RESULTS passages of ≤ 600 characters, so a few megabytes at worst. */
export const SEARCH_CACHE_ENTRIES = 1_000;

/**
 * searchAgentKnowledge, with each answer held until the next write to a knowledge table (or any other watched one):
 * publish, unpublish, edit, delete, membership, module and selection changes, and their cascades, all drop it
 * (storage/read-cache.ts), so a turn never reads a stale hit. The answer depends only on the organization, the
 * modules the selection resolves to now, the query's terms and the limit, so those are the key: identical messages
 * (a trigger with a fixed prompt, a burst of the same question) search once.
 */
export function createAgentKnowledgeSearch(store: Pick<Storage, 'repos' | 'cache'>): AgentKnowledgeSearch {
  const { repos } = store;
  const cachedHits = store.cache.cached(
    (orgId: string, moduleIds: readonly string[], query: string, limit: number) => hitsIn(repos, orgId, moduleIds, query, limit),
    (orgId, moduleIds, query, limit) => `${orgId}\n${moduleIds.join(',')}\n${limit}\n${searchTerms(query).join(' ')}`,
    { maxEntries: SEARCH_CACHE_ENTRIES },
  );
  // No await on the way: a hit costs no microtask on SQLite; on PostgreSQL a miss caches its promise (one query).
  return (scope, query, limit = DEFAULT_RESULTS) =>
    nowOrLater(modulesOfAgent(repos, scope), (moduleIds) => (moduleIds.length === 0 ? [] : cachedHits(scope.orgId, moduleIds, query, clampLimit(limit))));
}

const clampLimit = (limit: number): number => Math.min(Math.max(1, limit), MAX_RESULTS);

/** The modules the agent's selection means now (selection and modules are cached reads, storage/repos/index.ts). */
function modulesOfAgent(repos: KnowledgeRepos, scope: AgentScope): Awaitable<string[]> {
  return nowOrLater(selectionOf(repos, scope.automationId), (selection) =>
    modulesOfSelection(repos.knowledge, { orgId: scope.orgId, domainId: scope.domainId }, selection),
  );
}

/** Passages depend on the query's terms only (bestPassage reads searchTerms), as the match does. */
function hitsIn(repos: KnowledgeRepos, orgId: string, moduleIds: readonly string[], query: string, limit: number): Awaitable<KnowledgeHit[]> {
  const match = ftsQuery(searchTerms(query));
  if (moduleIds.length === 0 || match === null) return [];
  return nowOrLater(repos.knowledge.matchPublishedInModules(orgId, moduleIds, match, limit), (rows) =>
    rows.map((row) => ({ title: row.title, passage: bestPassage(row.publishedBody ?? '', query), articleId: row.id })),
  );
}

/**
 * An agent's stored selection. A flow has none to store: its `knowledge.search` steps search what its domain can see
 * (the domain's modules plus the organization's), as an agent with selection `domain` would.
 */
function selectionOf(repos: KnowledgeRepos, automationId: string): Awaitable<StoredSelection> {
  return nowOrLater(repos.automations.knowledgeSelection(automationId), (row) =>
    row !== undefined
      ? parseSelection(row)
      : nowOrLater(repos.automations.automation(automationId), (automation) => (automation?.kind === 'flow' ? FLOW_SELECTION : NO_SELECTION)),
  );
}

const FLOW_SELECTION: StoredSelection = Object.freeze({ mode: 'domain', moduleIds: Object.freeze([]) });

function selectionIsNone(repos: KnowledgeRepos, automationId: string): Awaitable<boolean> {
  return nowOrLater(selectionOf(repos, automationId), (selection) => selection.mode === 'none');
}

/**
 * The tool provider the turn engine registers (runtime/turns/tool-providers.ts). `knowledge.search` is offered when
 * the procedure references it or the agent's selection is not `none`; it runs with the service's own authority.
 */
export function createKnowledgeToolProvider(deps: { store: Pick<Storage, 'repos' | 'cache'>; search?: AgentKnowledgeSearch }): ToolProvider {
  const { repos } = deps.store;
  const search = deps.search ?? createAgentKnowledgeSearch(deps.store);
  return {
    integrationId: KNOWLEDGE_INTEGRATION_ID,
    tools: (scope) =>
      scope.inBelt ? KNOWLEDGE_INTEGRATION.tools : nowOrLater(selectionIsNone(repos, scope.automationId), (none) => (none ? [] : KNOWLEDGE_INTEGRATION.tools)),
    async execute(call): Promise<ToolResult> {
      if (call.signal.aborted) return { ok: false, code: 'TOOL_CANCELLED', message: 'The knowledge search was cancelled.' };
      const query = typeof call.args.query === 'string' ? call.args.query : '';
      const limit = typeof call.args.limit === 'number' ? call.args.limit : DEFAULT_RESULTS;
      const results = takeRunHits(call.scope, query, limit) ?? (await search(call.scope, query, limit));
      // Titles and passages first: a summarizing model that cuts long output keeps the text it answers from.
      const output = results.length > 0 ? { results } : { results, note: 'No published article in this agent\'s knowledge matches the query.' };
      return { ok: true, status: 200, output, files: [] };
    },
  };
}

/*
 * One search per turn run instead of two. builtin:procedure calls `knowledge.search` with the turn's message as its
 * query, which is exactly the query the prompt's snippets were just chosen by, so each turn ran the same bm25 query
 * (the costliest statement of a turn) twice, milliseconds apart. The prompt selection now fetches DEFAULT_RESULTS
 * hits and leaves them for the run's first `knowledge.search` call with that same query and a limit it can serve.
 * Keyed by the run's scope object (the one its tool calls carry; a resumed run gets a new one), so hits never outlive
 * their run or reach another execution, and the WeakMap needs no eviction. Taken once: a second call searches afresh.
 */
const runHits = new WeakMap<ToolCallScope, { query: string; limit: number; hits: readonly KnowledgeHit[] }>();

function takeRunHits(scope: ToolCallScope, query: string, limit: number): readonly KnowledgeHit[] | undefined {
  const held = runHits.get(scope);
  if (held === undefined) return undefined;
  runHits.delete(scope);
  const wanted = clampLimit(limit);
  // The hits are a prefix of any longer result: the repository orders by score, then id.
  return held.query === query && wanted <= held.limit ? held.hits.slice(0, wanted) : undefined;
}

/** Up-front knowledge for the system prompt: the best passages for the turn's message (none for selection `none`). */
export function createKnowledgeSource(deps: { store: Pick<Storage, 'repos' | 'cache'>; search?: AgentKnowledgeSearch }): KnowledgeSource {
  const search = deps.search ?? createAgentKnowledgeSearch(deps.store);
  const limit = Math.max(PROMPT_SNIPPETS, DEFAULT_RESULTS);
  return {
    async select(scope, query): Promise<readonly KnowledgeSnippet[]> {
      runHits.delete(scope);
      const hits = await search(scope, query, limit);
      runHits.set(scope, { query, limit, hits });
      return hits.slice(0, PROMPT_SNIPPETS).map((hit) => ({ title: hit.title, body: hit.passage }));
    },
  };
}
