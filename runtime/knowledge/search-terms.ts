// Owns turning free text into search terms and a safe FTS5 query (user text never reaches MATCH unquoted).

/** More terms add little to ranking and make MATCH slower. */
export const MAX_TERMS = 32;

/** Letters and digits in any script; everything else (FTS5 operators, quotes, punctuation) separates terms. */
const TERM = /[\p{L}\p{N}]+/gu;

/** Distinct lower-case terms in order of first appearance, at most `limit`. */
export function searchTerms(text: string, limit = MAX_TERMS): string[] {
  const terms = new Set<string>();
  for (const match of text.toLowerCase().matchAll(TERM)) {
    terms.add(match[0]);
    if (terms.size === limit) break;
  }
  return [...terms];
}

/**
 * Any-term query: each term is a quoted string (the porter tokenizer still stems it), joined with OR, so bm25 ranks
 * articles that match more and rarer terms first. Null when the text has no terms.
 */
export function ftsQuery(terms: readonly string[]): string | null {
  return terms.length === 0 ? null : terms.map((term) => `"${term}"`).join(' OR ');
}
