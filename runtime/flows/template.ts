// Owns `{{ … }}` templates in flow strings: compiling them once, and rendering whole-value (typed) or embedded (text) forms.
import type { JsonValue } from '../manifest/json-value.schema.js';
import { ExpressionSyntaxError } from './expression-lexer.js';
import { evaluate, type FlowScope } from './expression-eval.js';
import { parseExpression, stepReferences, type Expression } from './expression-parser.js';

export type TemplatePart = { readonly text: string } | { readonly expression: Expression };

export interface CompiledTemplate {
  /** Set when the string is exactly one `{{ … }}` and nothing else: its value keeps its JSON type. */
  readonly whole: Expression | null;
  readonly parts: readonly TemplatePart[];
  /** Step ids the template reads. */
  readonly references: ReadonlySet<string>;
}

/** A template that does not compile: `at` is the offset in the template string. */
export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
    this.name = 'TemplateSyntaxError';
  }
}

/** Where the `}}` closing the expression that starts at `from` is; quotes are skipped so `'}}'` can be a literal. */
function closingBraces(source: string, from: number): number {
  let quote: string | null = null;
  for (let i = from; i < source.length; i++) {
    const ch = source[i]!;
    if (quote !== null) {
      if (ch === '\\') i += 1;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === '}' && source[i + 1] === '}') {
      return i;
    }
  }
  return -1;
}

export function hasTemplate(text: string): boolean {
  return text.includes('{{');
}

/** Compiles a template string; throws TemplateSyntaxError for an unclosed `{{` or an expression outside the grammar. */
export function compileTemplate(source: string): CompiledTemplate {
  const parts: TemplatePart[] = [];
  const references = new Set<string>();
  let cursor = 0;
  while (cursor < source.length) {
    const open = source.indexOf('{{', cursor);
    if (open === -1) {
      parts.push({ text: source.slice(cursor) });
      break;
    }
    if (open > cursor) parts.push({ text: source.slice(cursor, open) });
    const close = closingBraces(source, open + 2);
    if (close === -1) throw new TemplateSyntaxError('"{{" is not closed by "}}"', open);
    const body = source.slice(open + 2, close);
    let expression: Expression;
    try {
      expression = parseExpression(body);
    } catch (error) {
      if (error instanceof ExpressionSyntaxError) throw new TemplateSyntaxError(error.message, open + 2 + error.at);
      throw error;
    }
    stepReferences(expression, references);
    parts.push({ expression });
    cursor = close + 2;
  }
  const only = parts.length === 1 ? parts[0]! : undefined;
  const whole = only !== undefined && 'expression' in only ? only.expression : null;
  return { whole, parts, references };
}

/** How a value reads inside text: strings as they are, null as nothing, numbers and booleans as written, the rest as JSON. */
export function textOf(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * Renders one compiled template. The result is never scanned again, so a value that itself contains `{{ … }}`
 * (from the input or an upstream answer) stays literal text: data cannot inject expressions.
 */
export function renderCompiled(template: CompiledTemplate, scope: FlowScope): JsonValue {
  if (template.whole !== null) return evaluate(template.whole, scope);
  let out = '';
  for (const part of template.parts) out += 'text' in part ? part.text : textOf(evaluate(part.expression, scope));
  return out;
}

/** Compiles each distinct template string once (definitions are immutable, so the cache never goes stale). */
export class TemplateCache {
  private readonly compiled = new Map<string, CompiledTemplate>();

  get(source: string): CompiledTemplate {
    let template = this.compiled.get(source);
    if (template === undefined) {
      template = compileTemplate(source);
      this.compiled.set(source, template);
    }
    return template;
  }

  /** Renders every string inside a JSON value (object keys are not templates); other values are copied as they are. */
  renderValue(value: JsonValue, scope: FlowScope): JsonValue {
    if (typeof value === 'string') return hasTemplate(value) ? renderCompiled(this.get(value), scope) : value;
    if (Array.isArray(value)) return value.map((item) => this.renderValue(item, scope));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, JsonValue> = {};
      // defineProperty, not assignment: a key named "__proto__" stays an own data property.
      for (const [key, item] of Object.entries(value)) Object.defineProperty(out, key, { value: this.renderValue(item, scope), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return value;
  }
}
