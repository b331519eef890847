// The seam for tools that are not declarative HTTP integrations (built-in `http`, `knowledge.search`) and for knowledge context.
import type { Awaitable } from '../../storage/port/storage.js';
import type { KnowledgeSnippet } from '../models/index.js';
import type { CatalogTool, ToolResult } from './index.js';

/** Where a tool call happens: providers scope what they read (e.g. knowledge) by it. */
export interface ToolCallScope {
  readonly orgId: string;
  readonly domainId: string;
  readonly automationId: string;
  readonly sessionId: string;
  readonly executionId: string;
}

export interface ToolProviderCall {
  readonly toolName: string;
  /** Already validated against the tool's inputSchema. */
  readonly args: Record<string, unknown>;
  readonly scope: ToolCallScope;
  /** Fires when the turn is cancelled, runs out of wall time, or the service shuts down. */
  readonly signal: AbortSignal;
}

/**
 * A built-in integration's tools. Providers run with the service's own authority (no caller or connection
 * material reaches them) and return the same ToolResult as declarative integrations.
 */
export interface ToolProvider {
  readonly integrationId: string;
  /**
   * The tools to offer this turn. `inBelt` says whether the agent's procedure references this integration; a
   * provider may offer tools beyond that (the knowledge provider offers `knowledge.search` to every agent whose
   * knowledge selection is not `none`). Now or later: the knowledge provider reads the selection from storage.
   */
  tools(scope: ToolCallScope & { readonly inBelt: boolean }): Awaitable<readonly CatalogTool[]>;
  execute(call: ToolProviderCall): Promise<ToolResult>;
}

/** Knowledge chosen up front for the system prompt (the agent's knowledge selection); the default chooses none. */
export interface KnowledgeSource {
  /** `scope` is the run's own object, the one its tool calls carry, so a source may leave work for them (by identity). */
  select(scope: ToolCallScope, query: string): Promise<readonly KnowledgeSnippet[]>;
}

export interface ToolProviderRegistry {
  register(provider: ToolProvider): void;
  get(integrationId: string): ToolProvider | undefined;
  all(): readonly ToolProvider[];
  setKnowledgeSource(source: KnowledgeSource): void;
  knowledge(): KnowledgeSource | null;
}

export function createToolProviderRegistry(): ToolProviderRegistry {
  const providers = new Map<string, ToolProvider>();
  let knowledge: KnowledgeSource | null = null;
  return {
    register(provider) {
      if (providers.has(provider.integrationId)) throw new Error(`A tool provider for "${provider.integrationId}" is already registered.`);
      providers.set(provider.integrationId, provider);
    },
    get: (integrationId) => providers.get(integrationId),
    all: () => [...providers.values()],
    setKnowledgeSource(source) {
      knowledge = source;
    },
    knowledge: () => knowledge,
  };
}
