// Re-exports the knowledge runtime (authoring, selection, the built-in knowledge.search tool) by name.
export { createKnowledgeAuthoring, type ArticleView, type KnowledgeAuthoring, type MembershipView, type ModuleView } from './knowledge-authoring.service.js';
export { createKnowledgeSelections, normalizeModuleIds, type KnowledgeSelections, type SelectionInput } from './knowledge-selection.service.js';
export { createAgentKnowledgeSearch, createKnowledgeSource, createKnowledgeToolProvider, searchAgentKnowledge, type AgentKnowledgeSearch, type KnowledgeHit } from './knowledge-search.tool.js';
export { baseFitsModule, modulesOfSelection, moduleVisibleToAgent, type StoredSelection } from './knowledge-visibility.js';
