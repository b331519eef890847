// Owns planning an agent's belt: the integrations its procedure references, each with its binding's identity mode.
import { procedureToolReferences } from '../models/procedure-refs.js';
import type { IdentityBinding, IntegrationBinding } from '../vault/identity-policy.js';

/** `crm.get_contact` -> `crm`. */
export const integrationOfTool = (wireId: string): string => wireId.slice(0, wireId.indexOf('.'));

/**
 * The belt frozen into a revision: every integration the procedure references with `#integration.tool`, in
 * order of first reference, with its binding's identity mode; an integration the author did not bind runs
 * with service identity.
 */
export function planBelt(procedure: string, bindings: Readonly<Record<string, IdentityBinding>> = {}): IntegrationBinding[] {
  const integrations = new Set(procedureToolReferences(procedure).map(integrationOfTool));
  return [...integrations].map((integrationId) => ({
    integrationId,
    identityMode: Object.hasOwn(bindings, integrationId) ? bindings[integrationId]! : 'service',
  }));
}
