// The belt (integration -> identity mode) a subscriber's published version runs with, cached: published versions are immutable.
import type { Automation } from '../../storage/records/automations.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import { flowBelt, flowDefinitionOfVersion } from '../flows/flow-definition.js';
import { readRevision } from '../turns/agent-revision.js';
import type { IntegrationBinding } from '../vault/index.js';

const CACHE_LIMIT = 2_000;

export type BindingsReader = (automation: Automation) => Promise<readonly IntegrationBinding[] | undefined>;

/** Undefined when the published version row is missing (treated like an unpublished subscriber). */
export function createBindingsReader(automations: Pick<PortRepositories['automations'], 'agentRevision' | 'flowVersion'>): BindingsReader {
  // Keyed by automation and version: a version never changes once published, so entries never go stale.
  const cache = new Map<string, readonly IntegrationBinding[]>();
  return async (automation) => {
    const version = automation.publishedRevision;
    if (version === null) return undefined;
    const cacheKey = `${automation.id}@${version}`;
    const cached = cache.get(cacheKey);
    if (cached !== undefined) return cached;
    let belt: readonly IntegrationBinding[] | undefined;
    if (automation.kind === 'agent') belt = (await readRevision(automations, automation.id, version))?.belt;
    else {
      const row = await automations.flowVersion(automation.id, version);
      belt = row === undefined ? undefined : flowBelt(flowDefinitionOfVersion(row));
    }
    if (belt === undefined) return undefined;
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(cacheKey, belt);
    return belt;
  };
}
