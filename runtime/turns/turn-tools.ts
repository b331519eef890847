// The tools one turn may call: every tool of the revision's belt integrations plus what built-in providers offer.
import { createHash } from 'node:crypto';
import type { IntegrationRow, IntegrationsRepo } from '../../storage/repos/integrations.repo.js';
import type { IntegrationDefinition, ToolDefinition } from '../manifest/integration.schema.js';
import type { ToolSpec } from '../models/index.js';
import { createToolCatalog, type CatalogTool, type ToolCatalog } from '../tools/index.js';
import type { PublishedRevision } from './agent-revision.js';
import type { ToolCallScope, ToolProvider, ToolProviderRegistry } from '../tools/tool-providers.js';

export type BoundTool =
  | { readonly source: 'manifest'; readonly integration: IntegrationDefinition; readonly tool: ToolDefinition; readonly readonly: boolean }
  | { readonly source: 'provider'; readonly provider: ToolProvider; readonly tool: CatalogTool; readonly readonly: boolean };

export interface TurnTools {
  /** By wire id. */
  readonly byName: ReadonlyMap<string, BoundTool>;
  /** What the model is told, in belt order. */
  readonly specs: readonly ToolSpec[];
}

/** The organization's integration catalog: global integrations and its own, built-ins excluded (providers serve those). */
export function organizationCatalog(integrations: IntegrationsRepo, orgId: string): ToolCatalog {
  return buildCatalog(integrations.integrationsVisibleTo(orgId));
}

function buildCatalog(rows: readonly IntegrationRow[]): ToolCatalog {
  const definitions = rows.map((row) => JSON.parse(row.manifest) as IntegrationDefinition);
  return createToolCatalog(definitions.filter((d) => d.id !== 'http' && d.id !== 'knowledge'));
}

export type CatalogSource = (orgId: string) => ToolCatalog;

/**
 * Catalogs kept per organization while its integration rows are unchanged. Besides the parsing, this keeps the
 * tools' schema objects stable, so the argument validator reuses its compiled schemas instead of recompiling
 * them on every call.
 */
export function createCatalogCache(integrations: IntegrationsRepo): CatalogSource {
  const cache = new Map<string, { signature: string; catalog: ToolCatalog }>();
  return (orgId) => {
    const rows = integrations.integrationsVisibleTo(orgId);
    const hash = createHash('sha1');
    for (const row of rows) hash.update(`${row.id}\u0000${row.updated_at}\u0000${row.manifest}\u0000`);
    const signature = hash.digest('base64');
    const cached = cache.get(orgId);
    if (cached?.signature === signature) return cached.catalog;
    const catalog = buildCatalog(rows);
    cache.set(orgId, { signature, catalog });
    return catalog;
  };
}

export function integrationOf(wireId: string): string {
  return wireId.slice(0, wireId.indexOf('.'));
}

export function bindTurnTools(catalog: ToolCatalog, providers: ToolProviderRegistry, revision: PublishedRevision, scope: ToolCallScope): TurnTools {
  const byName = new Map<string, BoundTool>();
  const add = (tool: BoundTool) => {
    if (!byName.has(tool.tool.name)) byName.set(tool.tool.name, tool);
  };
  for (const { integrationId } of revision.belt) {
    const entry = catalog.integration(integrationId);
    if (entry?.source === 'manifest') {
      for (const tool of entry.integration.tools) add({ source: 'manifest', integration: entry.integration, tool, readonly: tool.readonly });
    }
  }
  const beltIds = new Set(revision.belt.map((b) => b.integrationId));
  for (const provider of providers.all()) {
    for (const tool of provider.tools({ ...scope, inBelt: beltIds.has(provider.integrationId) })) {
      add({ source: 'provider', provider, tool, readonly: tool.readonly });
    }
  }
  const specs = [...byName.values()].map(({ tool }) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown> }));
  return { byName, specs };
}
