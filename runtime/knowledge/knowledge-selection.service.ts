// Owns an agent's knowledge selection (SPEC PUT …/knowledge-selection): normalized, deduplicated, visible modules only.
import type { KnowledgeMode } from '../../storage/records/automations.js';
import type { Storage } from '../../storage/port/storage.js';
import { editableAutomation, type Author } from '../authoring/authoring-access.js';
import { notFound, validation } from '../errors.js';
import { isUuid } from '../ids.js';
import { moduleVisibleToAgent, parseSelection, type StoredSelection } from './knowledge-visibility.js';

export interface SelectionInput {
  readonly mode: KnowledgeMode;
  readonly moduleIds?: readonly string[];
}

export interface KnowledgeSelections {
  read(author: Author, automationId: string): Promise<StoredSelection>;
  set(author: Author, automationId: string, input: SelectionInput): Promise<StoredSelection>;
}

/** Lower-case UUIDs, first occurrence kept: the stored (and answered) form. */
export function normalizeModuleIds(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

export function createKnowledgeSelections(deps: { store: Pick<Storage, 'repos' | 'writer'> }): KnowledgeSelections {
  const { repos, writer } = deps.store;
  const { automations } = repos;

  return {
    async read(author, automationId) {
      const automation = await editableAutomation(repos, author, automationId, 'manage_knowledge');
      return parseSelection(await automations.knowledgeSelection(automation.id));
    },

    async set(author, automationId, input) {
      const moduleIds = normalizeModuleIds(input.moduleIds ?? []);
      if (input.mode !== 'modules' && moduleIds.length > 0) throw validation('moduleIds is only allowed with mode "modules".');
      return writer.submit(async (tx) => {
        const automation = await editableAutomation(tx.repos, author, automationId, 'manage_knowledge');
        if (automation.kind !== 'agent') throw validation('This automation is a Flow; only agents have a knowledge selection.');
        const invisible: string[] = [];
        for (const id of moduleIds) {
          const module = isUuid(id) ? await tx.repos.knowledge.module(id) : undefined;
          // Another organization's module is indistinguishable from an unknown one (uniform 404).
          if (module === undefined || module.orgId !== author.orgId) throw notFound();
          if (!moduleVisibleToAgent(module, automation)) invisible.push(id);
        }
        if (invisible.length > 0) {
          throw validation("Some modules belong to another domain and are not visible to this agent.", { moduleIds: invisible });
        }
        await tx.repos.automations.upsertKnowledgeSelection({ automationId: automation.id, mode: input.mode, moduleIds });
        return { mode: input.mode, moduleIds };
      });
    },
  };
}
