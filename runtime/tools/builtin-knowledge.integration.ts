// Owns the catalog description of the built-in `knowledge` integration (searched by the knowledge runtime, not over HTTP).
import type { BuiltinIntegration, CatalogTool } from './catalog.types.js';

export const KNOWLEDGE_INTEGRATION_ID = 'knowledge';
export const KNOWLEDGE_SEARCH_TOOL = 'knowledge.search';

export const KNOWLEDGE_INTEGRATION: BuiltinIntegration = Object.freeze({
  id: KNOWLEDGE_INTEGRATION_ID,
  name: 'Knowledge',
  description: "Published knowledge articles selected for the agent (the organization's or domain's modules).",
  tools: Object.freeze<CatalogTool[]>([
    {
      name: KNOWLEDGE_SEARCH_TOOL,
      description: 'Search the published knowledge articles available to this agent. Returns the best matching passages with their article titles.',
      readonly: true,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 1_000, description: 'What to look for.' },
          limit: { type: 'integer', minimum: 1, maximum: 20, description: 'Most results to return (default 5).' },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
  ]),
});
