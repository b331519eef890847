// The example workspace's `crm` integration (shared/examples/workspace.json) plus tools covering every mapping mode.
import { IntegrationDefinitionSchema, type IntegrationDefinition, type ToolDefinition } from '../../../runtime/manifest/integration.schema.js';

const idOnly = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false } as const;

export function crmIntegration(baseUrl: string, overrides: Partial<IntegrationDefinition> = {}): IntegrationDefinition {
  return IntegrationDefinitionSchema.parse({
    id: 'crm',
    name: 'Acme CRM',
    description: 'Contacts and deals kept in the CRM',
    baseUrl,
    auth: { token: { header: 'Authorization', scheme: 'Bearer' }, fields: [{ name: 'api_key', header: 'X-Api-Key' }] },
    tools: [
      { name: 'crm.get_contact', description: 'Read one contact by id', readonly: true, request: { method: 'GET', path: '/contacts/{id}' }, inputSchema: idOnly },
      {
        name: 'crm.update_contact',
        description: 'Change fields of one contact',
        readonly: false,
        request: { method: 'PATCH', path: '/contacts/{id}', body: 'rest' },
        inputSchema: {
          type: 'object',
          properties: { id: { type: 'string' }, tier: { type: 'string', enum: ['free', 'pro', 'enterprise'] }, note: { type: 'string' } },
          required: ['id'],
          additionalProperties: false,
        },
      },
      {
        name: 'crm.add_note',
        description: 'Attach a note to a contact',
        readonly: false,
        request: { method: 'POST', path: '/contacts/{id}/notes', body: 'args' },
        inputSchema: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } }, required: ['id', 'text'], additionalProperties: false },
      },
      {
        name: 'crm.search_contacts',
        description: 'Find contacts by name and tags',
        readonly: true,
        request: { method: 'GET', path: '/contacts' },
        inputSchema: {
          type: 'object',
          properties: { q: { type: 'string' }, limit: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
          additionalProperties: false,
        },
      },
      {
        name: 'crm.merge_contacts',
        description: 'Merge two contacts',
        readonly: false,
        request: { method: 'POST', path: '/contacts/{id}/merge', body: 'rest', query: ['dryRun'] },
        inputSchema: {
          type: 'object',
          properties: { id: { type: 'string' }, into: { type: 'string' }, dryRun: { type: 'boolean' } },
          required: ['id', 'into'],
          additionalProperties: false,
        },
      },
      { name: 'crm.export_contact', description: 'Export a contact card', readonly: true, request: { method: 'GET', path: '/contacts/{id}/export' }, inputSchema: idOnly },
    ],
    ...overrides,
  });
}

export function toolOf(integration: IntegrationDefinition, name: string): ToolDefinition {
  const tool = integration.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`fixture has no tool ${name}`);
  return tool;
}
