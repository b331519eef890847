// Owns which knowledge reaches whom: modules an agent may select, articles a module may hold, modules a selection means.
import type { AutomationRow, KnowledgeMode } from '../../storage/repos/automations.repo.js';
import type { KnowledgeBase, KnowledgeModule } from '../../storage/records/knowledge.js';
import type { KnowledgeRepo } from '../../storage/repos/knowledge.repo.js';

/** Organization modules serve every domain; a domain module serves agents of its own domain only. */
export function moduleVisibleToAgent(module: KnowledgeModule, agent: Pick<AutomationRow, 'org_id' | 'domain_id'>): boolean {
  return module.orgId === agent.org_id && (module.kind === 'org' || module.domainId === agent.domain_id);
}

/**
 * A module may hold an article only if everyone the module serves could see the article's base: an organization-wide
 * base fits any module; a domain's base fits only that domain's modules (an org module would leak it to other domains).
 */
export function baseFitsModule(base: KnowledgeBase, module: KnowledgeModule): boolean {
  return base.orgId === module.orgId && (base.domainId === null || (module.kind === 'domain' && module.domainId === base.domainId));
}

export interface StoredSelection {
  readonly mode: KnowledgeMode;
  readonly moduleIds: readonly string[];
}

export const NO_SELECTION: StoredSelection = Object.freeze({ mode: 'none', moduleIds: Object.freeze([]) });

export function parseSelection(row: { mode: KnowledgeMode; module_ids: string } | undefined): StoredSelection {
  if (row === undefined) return NO_SELECTION;
  const ids = JSON.parse(row.module_ids) as unknown;
  return { mode: row.mode, moduleIds: Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [] };
}

/**
 * The modules a selection means now: `org` every organization module; `domain` the agent's domain modules plus the
 * organization's (organization knowledge is meant for every domain); `modules` the listed ones still visible.
 */
export function modulesOfSelection(knowledge: KnowledgeRepo, agent: Pick<AutomationRow, 'org_id' | 'domain_id'>, selection: StoredSelection): string[] {
  if (selection.mode === 'none') return [];
  const visible = knowledge.modulesOfOrganization(agent.org_id).filter((module) => moduleVisibleToAgent(module, agent));
  switch (selection.mode) {
    case 'org':
      return visible.filter((module) => module.kind === 'org').map((module) => module.id);
    case 'domain':
      return visible.map((module) => module.id);
    case 'modules': {
      const ids = new Set(visible.map((module) => module.id));
      return selection.moduleIds.filter((id) => ids.has(id));
    }
  }
}
