// Owns which knowledge reaches whom: modules an agent may select, articles a module may hold, modules a selection means.
import type { Automation, KnowledgeMode, KnowledgeSelection } from '../../storage/records/automations.js';
import type { KnowledgeBase, KnowledgeModule } from '../../storage/records/knowledge.js';
import type { Awaitable, PortRepositories } from '../../storage/port/storage.js';
import { nowOrLater } from './now-or-later.js';

/** Organization modules serve every domain; a domain module serves agents of its own domain only. */
export function moduleVisibleToAgent(module: KnowledgeModule, agent: Pick<Automation, 'orgId' | 'domainId'>): boolean {
  return module.orgId === agent.orgId && (module.kind === 'org' || module.domainId === agent.domainId);
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

export function parseSelection(selection: KnowledgeSelection | undefined): StoredSelection {
  return selection === undefined ? NO_SELECTION : { mode: selection.mode, moduleIds: selection.moduleIds };
}

/**
 * The modules a selection means now: `org` every organization module; `domain` the agent's domain modules plus the
 * organization's (organization knowledge is meant for every domain); `modules` the listed ones still visible.
 */
export function modulesOfSelection(
  knowledge: PortRepositories['knowledge'],
  agent: Pick<Automation, 'orgId' | 'domainId'>,
  selection: StoredSelection,
): Awaitable<string[]> {
  if (selection.mode === 'none') return [];
  // Synchronous when the repository is (the turn's cached read path), a promise otherwise.
  return nowOrLater(knowledge.modulesOfOrganization(agent.orgId), (modules) => modulesVisibleBy(modules, agent, selection));
}

function modulesVisibleBy(modules: readonly KnowledgeModule[], agent: Pick<Automation, 'orgId' | 'domainId'>, selection: StoredSelection): string[] {
  const visible = modules.filter((module) => moduleVisibleToAgent(module, agent));
  switch (selection.mode) {
    case 'none':
      return [];
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
