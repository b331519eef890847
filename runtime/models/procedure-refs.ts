// Owns finding `#integration.tool` references in a procedure (spec "Agent setup": a tool is `#` + its full wire id).

/**
 * `#crm.get_contact.` ends at the sentence's dot; `#crm` alone (no tool part) is not a reference, as the
 * spec has no integration-level references. The lookbehind keeps `a#b.c` (inside a word or URL) out.
 */
const REFERENCE = /(?<![A-Za-z0-9_#/-])#([A-Za-z0-9][A-Za-z0-9_-]*\.[A-Za-z0-9][A-Za-z0-9_-]*)/g;

/** Distinct wire ids in order of first appearance. */
export function procedureToolReferences(procedure: string): string[] {
  const seen = new Set<string>();
  for (const match of procedure.matchAll(REFERENCE)) seen.add(match[1]);
  return [...seen];
}
