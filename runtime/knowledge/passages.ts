// Owns picking the passage of an article that best answers a query (FTS5 snippets do not work on a contentless index).
import { searchTerms } from './search-terms.js';

/** A passage is at most this many characters: enough to answer from, small enough for several in one tool result. */
export const PASSAGE_MAX = 600;

/** Paragraphs, with long ones packed sentence by sentence into pieces of at most PASSAGE_MAX characters. */
export function chunks(body: string): string[] {
  const out: string[] = [];
  for (const paragraph of body.split(/\n\s*\n/)) {
    const text = paragraph.trim().replace(/\s+/g, ' ');
    if (text === '') continue;
    if (text.length <= PASSAGE_MAX) {
      out.push(text);
      continue;
    }
    let current = '';
    for (const sentence of text.split(/(?<=[.!?])\s+/)) {
      for (let i = 0; i < sentence.length; i += PASSAGE_MAX) {
        const piece = sentence.slice(i, i + PASSAGE_MAX);
        if (current !== '' && current.length + 1 + piece.length > PASSAGE_MAX) {
          out.push(current);
          current = '';
        }
        current = current === '' ? piece : `${current} ${piece}`;
      }
    }
    if (current !== '') out.push(current);
  }
  return out;
}

/** A crude stem (the index stems with porter; this only has to rank pieces of one article): drop a short ending. */
const stem = (word: string): string => (word.length > 4 ? word.slice(0, Math.max(4, word.length - 2)) : word);

function matches(term: string, token: string): boolean {
  return token === term || token.startsWith(stem(term)) || term.startsWith(stem(token));
}

/** The piece that contains the most distinct query terms (earliest on a tie); the opening piece when none does. */
export function bestPassage(body: string, query: string): string {
  const pieces = chunks(body);
  if (pieces.length === 0) return '';
  const terms = searchTerms(query);
  let best = pieces[0];
  let bestScore = 0;
  for (const piece of pieces) {
    const tokens = searchTerms(piece, Number.POSITIVE_INFINITY);
    const score = terms.filter((term) => tokens.some((token) => matches(term, token))).length;
    if (score > bestScore) {
      best = piece;
      bestScore = score;
    }
  }
  return best;
}
