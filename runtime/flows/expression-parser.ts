// Owns the flow expression grammar: literals, `input…` / `steps.<id>.output…` paths, comparisons, && || !, parentheses.
/*
 * expr       := or
 * or         := and ('||' and)*
 * and        := equality ('&&' equality)*
 * equality   := relational (('==' | '!=') relational)?      non-associative: `a == b == c` is refused
 * relational := unary (('<' | '>' | '<=' | '>=') unary)?    non-associative
 * unary      := '!' unary | '-' number | primary
 * primary    := number | string | true | false | null | path | '(' expr ')'
 * path       := 'input' accessor* | 'steps' '.' ident '.' 'output' accessor*
 * accessor   := '.' ident | '[' integer ']' | '[' string ']'
 * There are no calls, no assignment and no other names, so an expression can only read the run's JSON data.
 */
import type { JsonValue } from '../manifest/json-value.schema.js';
import { ExpressionSyntaxError, tokenize, type Token } from './expression-lexer.js';

export type BinaryOperator = '==' | '!=' | '<' | '>' | '<=' | '>=' | '&&' | '||';
export type PathSegment = string | number;

export type Expression =
  | { readonly kind: 'literal'; readonly value: JsonValue }
  | { readonly kind: 'input'; readonly segments: readonly PathSegment[] }
  | { readonly kind: 'step'; readonly stepId: string; readonly segments: readonly PathSegment[] }
  | { readonly kind: 'not'; readonly operand: Expression }
  | { readonly kind: 'binary'; readonly op: BinaryOperator; readonly left: Expression; readonly right: Expression };

/** Nesting bound: deep enough for any real condition, shallow enough that parsing can never exhaust the stack. */
export const MAX_EXPRESSION_DEPTH = 32;

const LITERAL_NAMES: Readonly<Record<string, JsonValue>> = { true: true, false: false, null: null };

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    const token = this.tokens[this.pos]!;
    if (token.kind !== 'end') this.pos += 1;
    return token;
  }

  private isOp(text: string): boolean {
    const token = this.peek();
    return token.kind === 'op' && token.text === text;
  }

  private expectOp(text: string, what: string): void {
    if (!this.isOp(text)) this.fail(`expected ${what}`);
    this.next();
  }

  private fail(message: string, token = this.peek()): never {
    const found = token.kind === 'end' ? 'end of expression' : JSON.stringify(token.text);
    throw new ExpressionSyntaxError(`${message}, found ${found}`, token.at);
  }

  private nested<T>(parse: () => T): T {
    this.depth += 1;
    if (this.depth > MAX_EXPRESSION_DEPTH) throw new ExpressionSyntaxError(`expression nests deeper than ${MAX_EXPRESSION_DEPTH} levels`, this.peek().at);
    try {
      return parse();
    } finally {
      this.depth -= 1;
    }
  }

  parseAll(): Expression {
    if (this.peek().kind === 'end') throw new ExpressionSyntaxError('empty expression', 0);
    const expression = this.or();
    if (this.peek().kind !== 'end') this.fail('expected an operator or the end of the expression');
    return expression;
  }

  private or(): Expression {
    let left = this.and();
    while (this.isOp('||')) {
      this.next();
      left = { kind: 'binary', op: '||', left, right: this.and() };
    }
    return left;
  }

  private and(): Expression {
    let left = this.equality();
    while (this.isOp('&&')) {
      this.next();
      left = { kind: 'binary', op: '&&', left, right: this.equality() };
    }
    return left;
  }

  private equality(): Expression {
    const left = this.relational();
    if (!this.isOp('==') && !this.isOp('!=')) return left;
    const op = this.next().text as BinaryOperator;
    const right = this.relational();
    if (this.isOp('==') || this.isOp('!=')) this.fail('comparisons do not chain; join them with && or ||');
    return { kind: 'binary', op, left, right };
  }

  private relational(): Expression {
    const left = this.unary();
    if (!['<', '>', '<=', '>='].some((op) => this.isOp(op))) return left;
    const op = this.next().text as BinaryOperator;
    const right = this.unary();
    if (['<', '>', '<=', '>='].some((o) => this.isOp(o))) this.fail('comparisons do not chain; join them with && or ||');
    return { kind: 'binary', op, left, right };
  }

  private unary(): Expression {
    if (this.isOp('!')) {
      this.next();
      return this.nested(() => ({ kind: 'not', operand: this.unary() }));
    }
    if (this.isOp('-')) {
      this.next();
      const token = this.next();
      if (token.kind !== 'number') this.fail('"-" must be followed by a number', token);
      return { kind: 'literal', value: -token.value! };
    }
    return this.primary();
  }

  private primary(): Expression {
    const token = this.next();
    if (token.kind === 'number') return { kind: 'literal', value: token.value! };
    if (token.kind === 'string') return { kind: 'literal', value: token.text };
    if (token.kind === 'op' && token.text === '(') {
      const inner = this.nested(() => this.or());
      this.expectOp(')', '")"');
      return inner;
    }
    if (token.kind === 'ident') {
      if (Object.hasOwn(LITERAL_NAMES, token.text)) return { kind: 'literal', value: LITERAL_NAMES[token.text]! };
      if (token.text === 'input') return { kind: 'input', segments: this.accessors() };
      if (token.text === 'steps') return this.stepPath();
      throw new ExpressionSyntaxError(`unknown name ${JSON.stringify(token.text)}: expressions read "input…" and "steps.<id>.output…"`, token.at);
    }
    this.fail('expected a value, a path or "("', token);
  }

  private stepPath(): Expression {
    this.expectOp('.', '"." and a step id after "steps"');
    const id = this.next();
    if (id.kind !== 'ident') this.fail('expected a step id after "steps."', id);
    this.expectOp('.', `".output" after "steps.${id.text}"`);
    const output = this.next();
    if (output.kind !== 'ident' || output.text !== 'output') this.fail(`expected "output" after "steps.${id.text}."`, output);
    return { kind: 'step', stepId: id.text, segments: this.accessors() };
  }

  private accessors(): PathSegment[] {
    const segments: PathSegment[] = [];
    for (;;) {
      if (this.isOp('.')) {
        this.next();
        const name = this.next();
        if (name.kind !== 'ident') this.fail('expected a property name after "."', name);
        segments.push(name.text);
      } else if (this.isOp('[')) {
        this.next();
        const key = this.next();
        if (key.kind === 'string') segments.push(key.text);
        else if (key.kind === 'number' && Number.isSafeInteger(key.value)) segments.push(key.value!);
        else this.fail('expected an array index or a quoted property name inside "[ ]"', key);
        this.expectOp(']', '"]"');
      } else {
        return segments;
      }
    }
  }
}

/** Parses one expression; throws ExpressionSyntaxError (a definition error) when it is not in the grammar. */
export function parseExpression(source: string): Expression {
  return new Parser(tokenize(source)).parseAll();
}

/** Step ids the expression reads, in order of first appearance. */
export function stepReferences(expression: Expression, into: Set<string> = new Set()): Set<string> {
  switch (expression.kind) {
    case 'step':
      into.add(expression.stepId);
      break;
    case 'not':
      stepReferences(expression.operand, into);
      break;
    case 'binary':
      stepReferences(expression.left, into);
      stepReferences(expression.right, into);
      break;
    default:
      break;
  }
  return into;
}
