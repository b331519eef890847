// The tools one turn may call: every tool of the revision's belt integrations plus what built-in providers offer.
import { createHash } from 'node:crypto';
import type { Integration } from '../../storage/records/integrations.js';
import type { PortRepositories } from '../../storage/port/storage.js';

type IntegrationsRepo = Pick<PortRepositories['integrations'], 'integrationsVisibleTo'>;
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
export async function organizationCatalog(integrations: IntegrationsRepo, orgId: string): Promise<ToolCatalog> {
  return buildCatalog(await integrations.integrationsVisibleTo(orgId));
}

function buildCatalog(integrations: readonly Integration[]): ToolCatalog {
  const definitions = integrations.map((integration) => integration.definition as IntegrationDefinition);
  return createToolCatalog(definitions.filter((d) => d.id !== 'http' && d.id !== 'knowledge'));
}

export type CatalogSource = (orgId: string) => Promise<ToolCatalog>;

/** What the catalog is built from; the same frozen list while the read cache holds it (storage/read-cache.ts). */
function signatureOf(integrations: readonly Integration[]): string {
  const hash = createHash('sha1');
  for (const i of integrations) hash.update(`${i.id}\u0000${i.updatedAt}\u0000${JSON.stringify(i.definition)}\u0000`);
  return hash.digest('base64');
}

/**
 * Catalogs kept per organization while its integrations are unchanged. Besides the building, this keeps the
 * tools' schema objects stable, so the argument validator reuses its compiled schemas instead of recompiling
 * them on every call. The visible list is a cached read, so a turn hashes it only after a configuration write.
 */
export function createCatalogCache(integrations: IntegrationsRepo): CatalogSource {
  const cache = new Map<string, { signature: string; catalog: ToolCatalog }>();
  const signatures = new WeakMap<readonly Integration[], string>();
  return async (orgId) => {
    const rows = await integrations.integrationsVisibleTo(orgId);
    let signature = signatures.get(rows);
    if (signature === undefined) signatures.set(rows, (signature = signatureOf(rows)));
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

export async function bindTurnTools(catalog: ToolCatalog, providers: ToolProviderRegistry, revision: PublishedRevision, scope: ToolCallScope): Promise<TurnTools> {
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
    for (const tool of await provider.tools({ ...scope, inBelt: beltIds.has(provider.integrationId) })) {
      add({ source: 'provider', provider, tool, readonly: tool.readonly });
    }
  }
  const specs = [...byName.values()].map(({ tool }) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown> }));
  return { byName, specs };
}
