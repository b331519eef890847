// The contract manifest (examples/workspace.json) plus what the fire tests need: a viewer, an unentitled agent, more triggers.
import { example } from '../runtime/manifest/manifest-fixtures.js';

/**
 * Adds to Acme: `vic` (sales viewer, key `vic-key`); `gated`, a published agent not entitled by default; `echo`, an
 * agent with no tools; API triggers `fan` (lookup, upgrader, enrich, drafty, gated), `empty` (no subscribers),
 * `flow-only` (enrich) and `quiet` (echo). `crmBaseUrl` points the CRM integration at a local upstream.
 */
export function fireWorkspace(options: { crmBaseUrl?: string } = {}): any {
  const manifest = example();
  if (options.crmBaseUrl !== undefined) manifest.integrations[0].baseUrl = options.crmBaseUrl;
  const acme = manifest.organizations[0];
  acme.users.push({ ref: 'vic', email: 'vic@acme.test', name: 'Vic Viewer', password: 'vic-password-1', orgRole: 'member', apiKeys: ['vic-key'] });
  acme.domains[0].members.push({ user: 'vic', role: 'viewer' });
  acme.agents.push({
    ref: 'gated',
    domain: 'sales',
    name: 'Not entitled',
    setup: { principles: '', procedure: 'Answer briefly.', model: 'builtin:procedure', approvalTools: [] },
    publish: true,
    entitled: false,
  });
  acme.agents.push({
    ref: 'echo',
    domain: 'sales',
    name: 'Echo',
    setup: { principles: '', procedure: 'Answer briefly.', model: 'builtin:procedure', approvalTools: [] },
    publish: true,
  });
  acme.triggers.push(
    { ref: 'fan', type: 'api', domain: 'sales', name: 'Fan out', subscribers: ['lookup', 'upgrader', 'enrich', 'drafty', 'gated'], active: true },
    { ref: 'empty', type: 'api', domain: 'sales', name: 'Nobody listens', subscribers: [], active: true },
    { ref: 'flow-only', type: 'api', domain: 'sales', name: 'Flow only', subscribers: ['enrich'], active: true },
    { ref: 'quiet', type: 'api', domain: 'sales', name: 'Quiet', subscribers: ['echo'], active: true },
  );
  return manifest;
}
