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

/** One `#wire.id` occurrence: `start` is the `#`, `end` is exclusive (UTF-16 offsets, like every length the API bounds). */
export interface ToolReferenceSpan {
  readonly wireId: string;
  readonly start: number;
  readonly end: number;
}

/** Every reference occurrence in order, found with the same pattern as procedureToolReferences (the verifier's spans). */
export function procedureToolReferenceSpans(procedure: string): ToolReferenceSpan[] {
  return [...procedure.matchAll(REFERENCE)].map((match) => ({ wireId: match[1], start: match.index, end: match.index + match[0].length }));
}
