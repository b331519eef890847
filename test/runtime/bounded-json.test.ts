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

t.test('the scan costs little next to JSON.parse on the hot path', async (t) => {
  const fireBody = JSON.stringify({ triggerId: '01a20378-0000-7000-8000-000000000000', input: { id: 'c-9', prompt: 'Look up the contact', nested: { list: [1, 'two', null] } } });
  const time = (fn: () => void, n: number): number => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    return Number(process.hrtime.bigint() - start) / n;
  };
  for (let i = 0; i < 5_000; i++) nestsDeeperThan(fireBody, 64) || JSON.parse(fireBody);
  const scanNs = time(() => nestsDeeperThan(fireBody, 64), 50_000);
  const parseNs = time(() => JSON.parse(fireBody), 50_000);
  t.comment(`fire body (${fireBody.length} B): scan ${scanNs.toFixed(0)} ns, JSON.parse ${parseNs.toFixed(0)} ns`);
  // Generous bound for a shared 2-core box: the scan must stay the same order as the parse it guards.
  t.ok(scanNs < parseNs * 5 + 2_000, 'the scan is within the cost of parsing the same body');
});
