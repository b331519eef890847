// Composes the authoring services (SPEC "Authoring"): integration catalog view, agents, knowledge, selections.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import { createKnowledgeAuthoring, type KnowledgeAuthoring } from '../knowledge/knowledge-authoring.service.js';
import { createKnowledgeSelections, type KnowledgeSelections } from '../knowledge/knowledge-selection.service.js';
import type { IntegrationView, ToolCatalog } from '../tools/catalog.js';
import { organizationCatalog } from '../turns/turn-tools.js';
import { createAgentAuthoring, type AgentAuthoring } from './agents.service.js';
import type { Author } from './authoring-access.js';

export interface IntegrationAuthoring {
  /** Trimmed, case-insensitive; at most 50 integrations (the catalog's search; a `q` over 200 characters is 400). */
  search(author: Author, q: string): Promise<IntegrationView[]>;
  /** With each tool's inputSchema; unknown, unavailable and other organizations' ids are the uniform 404. */
  read(author: Author, integrationId: string): Promise<IntegrationView>;
}

export interface AuthoringService {
  readonly integrations: IntegrationAuthoring;
  readonly agents: AgentAuthoring;
  readonly knowledge: KnowledgeAuthoring;
  readonly selections: KnowledgeSelections;
}

export interface AuthoringDeps {
  store: Pick<Storage, 'repos' | 'writer'>;
  clock: Clock;
}

export function createAuthoringService(deps: AuthoringDeps): AuthoringService {
  // Global integrations, the organization's own (available ones only) and the built-ins `http` and `knowledge`.
  // turns/turn-tools.ts reads the integrations through the storage port now: the catalog is a promise.
  const catalogFor = (orgId: string): Promise<ToolCatalog> => organizationCatalog(deps.store.repos.integrations, orgId);
  return {
    integrations: {
      search: async (author, q) => (await catalogFor(author.orgId)).search(q),
      async read(author, integrationId) {
        const view = (await catalogFor(author.orgId)).view(integrationId);
        if (view === undefined) throw notFound();
        return view;
      },
    },
    agents: createAgentAuthoring({ ...deps, catalogFor }),
    knowledge: createKnowledgeAuthoring(deps),
    selections: createKnowledgeSelections(deps),
  };
}
