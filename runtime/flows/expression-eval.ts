// Owns evaluating a parsed flow expression over the run's JSON data: total (never throws), no coercion, own properties only.
import type { JsonValue } from '../manifest/json-value.schema.js';
import type { Expression, PathSegment } from './expression-parser.js';

/** What expressions read: the run's input and the outputs of the tool steps that have run. */
export interface FlowScope {
  readonly input: JsonValue;
  /** Step id -> its output; a step that has not run (skipped branch) is absent and reads as null. */
  readonly outputs: ReadonlyMap<string, JsonValue>;
}

/**
 * A missing property, an index out of range, or a step that did not run reads as null. Only own properties of
 * JSON objects are read, so names like `__proto__` or `constructor` find nothing that the data does not hold.
 */
export function readPath(root: JsonValue | undefined, segments: readonly PathSegment[]): JsonValue {
  let value: JsonValue | undefined = root;
  for (const segment of segments) {
    if (value === null || value === undefined) return null;
    if (typeof segment === 'number') {
      value = Array.isArray(value) && segment >= 0 && segment < value.length ? value[segment] : undefined;
    } else if (typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, segment)) {
      value = (value as Record<string, JsonValue>)[segment];
    } else {
      value = undefined;
    }
  }
  return value ?? null;
}

/** JavaScript's falsy set restricted to JSON: false, null, 0 and "" are false; everything else (even [] and {}) is true. */
export function truthy(value: JsonValue): boolean {
  return !(value === false || value === null || value === 0 || value === '');
}

/** Structural equality of JSON values; no coercion (`1 == "1"` is false), object key order does not matter. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]!));
  }
  const aKeys = Object.keys(a);
  const bObject = b as Record<string, JsonValue>;
  return aKeys.length === Object.keys(bObject).length && aKeys.every((key) => Object.hasOwn(bObject, key) && jsonEqual(a[key]!, bObject[key]!));
}

/** Orders two numbers or two strings (by UTF-16 code units, the same everywhere); any other pair compares false. */
function compare(op: '<' | '>' | '<=' | '>=', a: JsonValue, b: JsonValue): boolean {
  const comparable = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!comparable) return false;
  switch (op) {
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    case '>=':
      return a >= b;
  }
}

/** `&&` and `||` short-circuit and yield an operand (so `input.x || 'default'` works); `!` and comparisons yield booleans. */
export function evaluate(expression: Expression, scope: FlowScope): JsonValue {
  switch (expression.kind) {
    case 'literal':
      return expression.value;
    case 'input':
      return readPath(scope.input, expression.segments);
    case 'step':
      return readPath(scope.outputs.get(expression.stepId), expression.segments);
    case 'not':
      return !truthy(evaluate(expression.operand, scope));
    case 'binary': {
      const left = evaluate(expression.left, scope);
      if (expression.op === '&&') return truthy(left) ? evaluate(expression.right, scope) : left;
      if (expression.op === '||') return truthy(left) ? left : evaluate(expression.right, scope);
      const right = evaluate(expression.right, scope);
      if (expression.op === '==') return jsonEqual(left, right);
      if (expression.op === '!=') return !jsonEqual(left, right);
      return compare(expression.op, left, right);
    }
  }
}
