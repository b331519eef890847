// Parses JSON a client sent, refusing bodies nested deeper than a limit before JSON.parse ever sees them.
import { validation, type AppError } from './errors.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * True when arrays/objects in `text` nest more than `maxDepth` levels (the outermost value is level 1). One linear,
 * iterative scan counting brackets outside strings: it cannot overflow the stack itself, and it stops at the first
 * level past the limit. Malformed text is not judged here; JSON.parse does that afterwards.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (end === -1) return false;
      i = end;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The quote ending the string opened at `open` (not escaped: preceded by an even run of backslashes), or -1. */
function closingQuote(text: string, open: number): number {
  // indexOf jumps over string content natively: a 1 MiB string field costs microseconds, not a character loop.
  let end = open;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end === -1) return -1;
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end;
  }
}

/**
 * The 400 VALIDATION for a too-deep body. A value that deep passes zod (free-form fields such as a fire's `input`)
 * and then overflows the stack in JSON.stringify or any recursive walk: refused before parsing instead.
 */
export function tooDeep(maxDepth: number, path = '(body)'): AppError {
  return validation(`The JSON body nests deeper than the limit of ${maxDepth} levels.`, {
    issues: [{ path, message: `arrays and objects may nest at most ${maxDepth} levels deep` }],
    maxDepth,
  });
}

/** JSON.parse behind the depth check; both refusals are 400 VALIDATION with `invalidMessage` for malformed JSON. */
export function parseBoundedJson(text: string, maxDepth: number, invalidMessage = 'The request body is not valid JSON.'): unknown {
  if (nestsDeeperThan(text, maxDepth)) throw tooDeep(maxDepth);
  try {
    return JSON.parse(text);
  } catch {
    throw validation(invalidMessage);
  }
}
