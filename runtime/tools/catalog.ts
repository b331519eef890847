// Owns the in-memory integration catalog: tool lookup by wire id, the model's tool listing and authoring search.
import { validation } from '../errors.js';
import type { IntegrationDefinition, ToolDefinition } from '../manifest/integration.schema.js';
import type { ObjectJsonSchema } from '../manifest/json-value.schema.js';
import { HTTP_INTEGRATION } from './builtin-http.integration.js';
import { KNOWLEDGE_INTEGRATION } from './builtin-knowledge.integration.js';
import type { BuiltinIntegration, CatalogTool } from './catalog.types.js';

export type { BuiltinIntegration, CatalogTool } from './catalog.types.js';

/** SPEC Limits "Integration search": `q` at most 200 characters; at most 50 results. */
export const SEARCH_QUERY_MAX_LENGTH = 200;
export const SEARCH_RESULT_LIMIT = 50;

export const BUILTIN_INTEGRATIONS: readonly BuiltinIntegration[] = Object.freeze([HTTP_INTEGRATION, KNOWLEDGE_INTEGRATION]);

export type CatalogEntry =
  | { readonly source: 'manifest'; readonly integration: IntegrationDefinition }
  | { readonly source: 'builtin'; readonly integration: BuiltinIntegration };

/** A tool with its integration; `manifest` tools carry the HTTP mapping the http-integration executor needs. */
export type FoundTool =
  | { readonly source: 'manifest'; readonly integration: IntegrationDefinition; readonly tool: ToolDefinition }
  | { readonly source: 'builtin'; readonly integration: BuiltinIntegration; readonly tool: CatalogTool };

/** What a model is told about a tool. */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ObjectJsonSchema;
}

/** SPEC "Integration and tool (authoring view)"; `inputSchema` only on the single-integration read. */
export interface IntegrationToolView {
  readonly name: string;
  readonly reference: string;
  readonly description: string;
  readonly isReadonly: boolean;
  readonly inputSchema?: ObjectJsonSchema;
}

export interface IntegrationView {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tools: readonly IntegrationToolView[];
}

export interface ToolCatalog {
  /** Every integration, sorted by id. */
  integrations(): readonly CatalogEntry[];
  integration(integrationId: string): CatalogEntry | undefined;
  findTool(wireId: string): FoundTool | undefined;
  /** The integration's tools, or undefined for an unknown integration id. */
  toolsOf(integrationId: string): readonly CatalogTool[] | undefined;
  /** Listing for the model layer, in the order asked; unknown wire ids are skipped (the publish verifier reports them). */
  modelTools(wireIds: Iterable<string>): ModelTool[];
  /** Trimmed, case-insensitive substring search over ids, names, descriptions and tools; at most 50, by id. */
  search(q: string): IntegrationView[];
  /** The single-integration read, with each tool's inputSchema. */
  view(integrationId: string): IntegrationView | undefined;
}

export interface ToolCatalogOptions {
  /** Defaults to `http` and `knowledge`. */
  readonly builtins?: readonly BuiltinIntegration[];
}

function viewOf(integration: IntegrationDefinition | BuiltinIntegration, withSchemas: boolean): IntegrationView {
  return {
    id: integration.id,
    name: integration.name,
    description: integration.description,
    tools: integration.tools.map((tool) => ({
      name: tool.name,
      reference: `#${tool.name}`,
      description: tool.description,
      isReadonly: tool.readonly,
      ...(withSchemas ? { inputSchema: tool.inputSchema } : {}),
    })),
  };
}

/** Each field on its own, so a match never spans two fields. */
function searchableFields(integration: IntegrationDefinition | BuiltinIntegration): string[] {
  const parts = [integration.id, integration.name, integration.description];
  for (const tool of integration.tools) parts.push(tool.name, tool.description);
  return parts.map((part) => part.toLowerCase());
}

export function createToolCatalog(definitions: readonly IntegrationDefinition[], options: ToolCatalogOptions = {}): ToolCatalog {
  const entries = new Map<string, CatalogEntry>();
  const tools = new Map<string, FoundTool>();
  const add = (entry: CatalogEntry) => {
    const { id } = entry.integration;
    // Built-ins are added first, so a manifest cannot shadow `http` or `knowledge`.
    if (entries.has(id)) throw validation(`Integration id "${id}" is defined more than once or is reserved.`, { integrationId: id });
    entries.set(id, entry);
    for (const tool of entry.integration.tools) {
      if (tools.has(tool.name)) throw validation(`Tool "${tool.name}" is defined more than once.`, { tool: tool.name });
      tools.set(tool.name, entry.source === 'manifest' ? { source: 'manifest', integration: entry.integration, tool: tool as ToolDefinition } : { source: 'builtin', integration: entry.integration, tool });
    }
  };
  for (const integration of options.builtins ?? BUILTIN_INTEGRATIONS) add({ source: 'builtin', integration });
  for (const integration of definitions) add({ source: 'manifest', integration });

  const sorted = [...entries.values()].sort((a, b) => (a.integration.id < b.integration.id ? -1 : a.integration.id > b.integration.id ? 1 : 0));
  const haystacks = new Map(sorted.map((entry) => [entry.integration.id, searchableFields(entry.integration)]));

  return {
    integrations: () => sorted,
    integration: (integrationId) => entries.get(integrationId),
    findTool: (wireId) => tools.get(wireId),
    toolsOf: (integrationId) => entries.get(integrationId)?.integration.tools,
    modelTools(wireIds) {
      const listed: ModelTool[] = [];
      for (const wireId of new Set(wireIds)) {
        const found = tools.get(wireId);
        if (found) listed.push({ name: found.tool.name, description: found.tool.description, inputSchema: found.tool.inputSchema });
      }
      return listed;
    },
    search(q) {
      const needle = q.trim().toLowerCase();
      if (needle.length > SEARCH_QUERY_MAX_LENGTH) throw validation(`q must be at most ${SEARCH_QUERY_MAX_LENGTH} characters.`);
      return sorted
        .filter((entry) => haystacks.get(entry.integration.id)!.some((field) => field.includes(needle)))
        .slice(0, SEARCH_RESULT_LIMIT)
        .map((entry) => viewOf(entry.integration, false));
    },
    view(integrationId) {
      const entry = entries.get(integrationId);
      return entry === undefined ? undefined : viewOf(entry.integration, true);
    },
  };
}
