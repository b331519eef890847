// Owns splitting a flow expression (the text inside `{{ }}`) into tokens; anything outside the small grammar is an error.

export type TokenKind = 'ident' | 'number' | 'string' | 'op' | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** Identifier name, operator text, or the decoded string literal. */
  readonly text: string;
  readonly value?: number;
  /** Offset in the expression source, for error messages. */
  readonly at: number;
}

/** A definition error: the expression (or template) cannot be compiled. `at` is an offset in its source. */
export class ExpressionSyntaxError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
    this.name = 'ExpressionSyntaxError';
  }
}

// Longest first, so `==` is never read as two `=`.
const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')', '[', ']', '.', '-'] as const;
const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const NUMBER = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', '/': '/', n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

function readString(source: string, start: number): { text: string; end: number } {
  const quote = source[start]!;
  let text = '';
  let i = start + 1;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === quote) return { text, end: i + 1 };
    if (ch === '\\') {
      const next = source[i + 1];
      if (next !== undefined && Object.hasOwn(SIMPLE_ESCAPES, next)) {
        text += SIMPLE_ESCAPES[next];
        i += 2;
        continue;
      }
      if (next === 'u' && /^[0-9A-Fa-f]{4}$/.test(source.slice(i + 2, i + 6))) {
        text += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      throw new ExpressionSyntaxError('invalid escape in string literal', i);
    }
    text += ch;
    i += 1;
  }
  throw new ExpressionSyntaxError('unterminated string literal', start);
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i += 1;
      continue;
    }
    if (ch === "'" || ch === '"') {
      const { text, end } = readString(source, i);
      tokens.push({ kind: 'string', text, at: i });
      i = end;
      continue;
    }
    if (ch >= '0' && ch <= '9') {
      const match = NUMBER.exec(source.slice(i));
      if (match === null) throw new ExpressionSyntaxError('invalid number', i);
      const after = source[i + match[0].length];
      if (after !== undefined && (IDENT_PART.test(after) || after === '.')) throw new ExpressionSyntaxError('invalid number', i);
      tokens.push({ kind: 'number', text: match[0], value: Number(match[0]), at: i });
      i += match[0].length;
      continue;
    }
    if (IDENT_START.test(ch)) {
      let end = i + 1;
      while (end < source.length && IDENT_PART.test(source[end]!)) end += 1;
      tokens.push({ kind: 'ident', text: source.slice(i, end), at: i });
      i = end;
      continue;
    }
    const op = OPERATORS.find((candidate) => source.startsWith(candidate, i));
    if (op === undefined) {
      const hint = ch === '=' ? ' (compare with "==")' : ch === '&' || ch === '|' ? ` (use "${ch}${ch}")` : '';
      throw new ExpressionSyntaxError(`unexpected character ${JSON.stringify(ch)}${hint}`, i);
    }
    tokens.push({ kind: 'op', text: op, at: i });
    i += op.length;
  }
  tokens.push({ kind: 'end', text: '', at: source.length });
  return tokens;
}
