// Owns reading `#integration.tool` references out of a procedure and planning the belt they imply.
import type { IdentityBinding, IntegrationBinding } from '../vault/identity-policy.js';

// SPEC "Resources": a tool is referenced as `#` + its full wire id; the tool part ends at the first character
// that cannot be in an id, so a sentence-ending "." after the reference is not part of it.
const TOOL_REFERENCE = /#([A-Za-z0-9][A-Za-z0-9_-]*\.[A-Za-z0-9][A-Za-z0-9_-]*)/g;

/** Tool wire ids referenced with `#`, in order of first appearance, without repeats. */
export function procedureToolRefs(procedure: string): string[] {
  const seen = new Set<string>();
  for (const match of procedure.matchAll(TOOL_REFERENCE)) seen.add(match[1]!);
  return [...seen];
}

export const integrationOfTool = (wireId: string): string => wireId.slice(0, wireId.indexOf('.'));

/**
 * The belt frozen into a revision: every integration the procedure references, in order of first reference,
 * with the identity mode of its binding. An integration the author did not bind runs with service identity.
 */
export function planBelt(procedure: string, bindings: Readonly<Record<string, IdentityBinding>> = {}): IntegrationBinding[] {
  const integrations = new Set(procedureToolRefs(procedure).map(integrationOfTool));
  return [...integrations].map((integrationId) => ({
    integrationId,
    identityMode: Object.hasOwn(bindings, integrationId) ? bindings[integrationId]! : 'service',
  }));
}
