// The iterative nesting scan agrees with the parsed value's depth, ignores brackets in strings, and never overflows.
import fc from 'fast-check';
import t from 'tap';
import { nestsDeeperThan, parseBoundedJson } from '../../runtime/bounded-json.js';
import { AppError } from '../../runtime/errors.js';

/** Reference depth of a parsed value (recursive: only used on fast-check's shallow values). */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

t.test('the scan agrees with the depth of any JSON value, compact or indented', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 12 }), fc.nat({ max: 14 }), fc.boolean(), (value, limit, indent) => {
      const text = indent ? JSON.stringify(value, null, 2) : JSON.stringify(value);
      return nestsDeeperThan(text, limit) === depthOf(value) > limit;
    }),
    { numRuns: 2_000 },
  );
  t.pass('2,000 generated values');
});

t.test('brackets and escaped quotes inside strings are not nesting', async (t) => {
  t.notOk(nestsDeeperThan(JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[\\" ok', c: '\\\\' }), 1));
  t.notOk(nestsDeeperThan('{"k\\"[[[": "v"}', 1), 'an escaped quote inside a key does not end it');
  t.ok(nestsDeeperThan('{"a":"\\\\",[[]]}', 2), 'an escaped backslash does end the string before the quote');
});

t.test('a million levels are judged without recursion; parse refuses them with the limit named', async (t) => {
  const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
  t.ok(nestsDeeperThan(deep, 64));
  const error = t.throws(() => parseBoundedJson(deep, 64)) as AppError;
  t.ok(error instanceof AppError);
  t.equal(error.code, 'VALIDATION');
  t.match(error.message, /limit of 64 levels/);
  t.same(parseBoundedJson('{"a":[1,{"b":null}]}', 3), { a: [1, { b: null }] }, 'three levels at a limit of 3 parse');
  t.match((t.throws(() => parseBoundedJson('{"a":', 64)) as AppError).message, /not valid JSON/);
});

