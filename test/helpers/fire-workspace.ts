// The contract manifest (examples/workspace.json) plus what the fire tests need: a viewer, an unentitled agent, more triggers.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const EXAMPLE = fileURLToPath(new URL('../../../shared/examples/workspace.json', import.meta.url));

/** The example manifest as the project must accept it, unchanged. */
export function exampleWorkspace(): any {
  return JSON.parse(readFileSync(EXAMPLE, 'utf8'));
}

/**
 * Adds to Acme: `vic` (sales viewer, key `vic-key`); `gated`, a published agent not entitled by default; API triggers
 * `fan` (lookup, upgrader, enrich, drafty, gated), `empty` (no subscribers) and `flow-only` (enrich).
 */
export function fireWorkspace(): any {
  const manifest = exampleWorkspace();
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
  acme.triggers.push(
    { ref: 'fan', type: 'api', domain: 'sales', name: 'Fan out', subscribers: ['lookup', 'upgrader', 'enrich', 'drafty', 'gated'], active: true },
    { ref: 'empty', type: 'api', domain: 'sales', name: 'Nobody listens', subscribers: [], active: true },
    { ref: 'flow-only', type: 'api', domain: 'sales', name: 'Flow only', subscribers: ['enrich'], active: true },
  );
  return manifest;
}
