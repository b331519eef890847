// The flow expression language: grammar, semantics (no coercion, null for missing), and what it refuses (no code, no prototypes).
import fc from 'fast-check';
import t from 'tap';
import { ExpressionSyntaxError } from '../../../runtime/flows/expression-lexer.js';
import { evaluate, truthy, type FlowScope } from '../../../runtime/flows/expression-eval.js';
import { MAX_EXPRESSION_DEPTH, parseExpression, stepReferences } from '../../../runtime/flows/expression-parser.js';
import type { JsonValue } from '../../../runtime/manifest/json-value.schema.js';

const scope: FlowScope = {
  input: { id: 'c-1', seats: 120, tags: ['a', 'b'], nested: { deep: { x: true } }, empty: '', zero: 0, 'odd key': 'yes' },
  outputs: new Map<string, JsonValue>([['get', { tier: 'enterprise', score: 7.5, owner: null, list: [{ n: 1 }, { n: 2 }] }]]),
};
const run = (source: string) => evaluate(parseExpression(source), scope);

t.test('literals and paths', async (t) => {
  t.equal(run("'it\\'s'"), "it's");
  t.equal(run('"tab\\tand \\u00e9"'), 'tab\tand é');
  t.equal(run('42'), 42);
  t.equal(run('-1.5e2'), -150);
  t.equal(run('true'), true);
  t.equal(run('null'), null);
  t.equal(run('input.id'), 'c-1');
  t.same(run('input.tags'), ['a', 'b']);
  t.equal(run('input.tags[1]'), 'b');
  t.equal(run("input['odd key']"), 'yes');
  t.equal(run('input.nested.deep.x'), true);
  t.equal(run('steps.get.output.tier'), 'enterprise');
  t.equal(run('steps.get.output.list[1].n'), 2);
  t.same(run('input'), scope.input, 'the whole input');
});

t.test('missing data reads as null; steps that did not run read as null', async (t) => {
  t.equal(run('input.nope'), null);
  t.equal(run('input.nope.deeper[3]'), null);
  t.equal(run('input.tags[9]'), null);
  t.equal(run('input.id.length'), null, 'no properties of strings');
  t.equal(run('input.tags.length'), null, 'no properties of arrays');
  t.equal(run('steps.later.output'), null);
  t.equal(run('steps.get.output.owner.name'), null);
});

t.test('comparisons do not coerce; ordering only between two numbers or two strings', async (t) => {
  t.equal(run("steps.get.output.tier == 'enterprise'"), true);
  t.equal(run("steps.get.output.tier != 'enterprise'"), false);
  t.equal(run("input.seats == '120'"), false);
  t.equal(run('input.zero == false'), false);
  t.equal(run('input.nope == null'), true);
  t.equal(run("input.tags == input.tags"), true, 'structural equality');
  t.equal(run('input.seats > 50'), true);
  t.equal(run('input.seats <= 120'), true);
  t.equal(run("'b' > 'a'"), true);
  t.equal(run("input.seats > '50'"), false);
  t.equal(run('input.nope < 1'), false);
  t.equal(run('null >= null'), false);
});

t.test('logic: short-circuit operands, ! yields a boolean, precedence and parentheses', async (t) => {
  t.equal(run("input.empty || 'default'"), 'default');
  t.equal(run('input.id && input.seats'), 120);
  t.equal(run('input.zero && input.missing.x'), 0);
  t.equal(run('!input.empty'), true);
  t.equal(run('!!input.id'), true);
  t.equal(run("input.seats > 100 && steps.get.output.tier == 'enterprise' || false"), true);
  t.equal(run('true || false && false'), true, '&& binds tighter than ||');
  t.equal(run('(true || false) && false'), false);
  t.equal(run('!(input.seats > 100)'), false);
  t.same([false, null, 0, ''].map((v) => truthy(v)), [false, false, false, false]);
  t.same([[], {}, 'x', -1].map((v) => truthy(v as JsonValue)), [true, true, true, true]);
});

t.test('step references are collected for definition checks', async (t) => {
  t.same([...stepReferences(parseExpression("steps.a.output == steps.b.output.x || !steps.a.output"))], ['a', 'b']);
});

const refused = [
  "constructor.constructor('return process')()",
  'input.constructor.constructor("return 1")()',
  'process.exit(1)',
  'globalThis',
  'this',
  'require("fs")',
  'input.id = 1',
  'input.id; 1',
  'input.id ? 1 : 2',
  '`template`',
  'input.seats + 1',
  'a => a',
  'new Function("x")',
  'input[input.id]',
  'input.id == 1 == true',
  'input.seats > 1 > 0',
  "steps.get.tier",
  'steps.get',
  'steps',
  "steps['get'].output",
  '1.',
  '01',
  "'unterminated",
  "'bad \\x escape'",
  '',
  '   ',
  '()',
  'input.',
  'input[-1]',
  'input[1.5]',
] as const;

t.test('anything outside the grammar is a syntax error, never evaluated', async (t) => {
  for (const source of refused) t.throws(() => parseExpression(source), ExpressionSyntaxError, source);
});

t.test('names that reach prototypes find only data', async (t) => {
  t.equal(run('input.constructor'), null);
  t.equal(run('input.__proto__'), null);
  t.equal(run("input['__proto__']"), null);
  t.equal(run('input.toString'), null);
  t.equal(run('input.tags.map'), null);
  const hostile: FlowScope = { input: JSON.parse('{"__proto__": {"polluted": "yes"}}') as JsonValue, outputs: new Map() };
  t.equal(evaluate(parseExpression('input.__proto__.polluted'), hostile), 'yes', 'an own "__proto__" key is plain data');
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
});

t.test('nesting is bounded: deep input is a syntax error, not a stack overflow', async (t) => {
  const deep = `${'('.repeat(MAX_EXPRESSION_DEPTH + 1)}true${')'.repeat(MAX_EXPRESSION_DEPTH + 1)}`;
  t.throws(() => parseExpression(deep), ExpressionSyntaxError);
  t.throws(() => parseExpression(`${'!'.repeat(10_000)}true`), ExpressionSyntaxError);
  t.equal(evaluate(parseExpression(`${'('.repeat(MAX_EXPRESSION_DEPTH - 1)}true${')'.repeat(MAX_EXPRESSION_DEPTH - 1)}`), scope), true);
  t.equal(evaluate(parseExpression(Array.from({ length: 2_000 }, () => 'false').join(' || ') + ' || input.id'), scope), 'c-1', 'long flat chains are fine');
});

t.test('property: any text either parses or is an ExpressionSyntaxError; evaluation never throws', async (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), fc.jsonValue(), (source, input) => {
      let expression;
      try {
        expression = parseExpression(source);
      } catch (error) {
        return error instanceof ExpressionSyntaxError;
      }
      evaluate(expression, { input: input as JsonValue, outputs: new Map() });
      return true;
    }),
    { numRuns: 2_000 },
  );
  t.pass('held for 2,000 generated cases');
});
