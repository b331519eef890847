// Guards tool-argument validation: ajv dialects, issue shape (path + rule), no value echoed, bounded output.
import t from 'tap';
import { createJsonSchemaValidator, formatIssues } from '../../../runtime/tools/json-schema-validator.js';

const contact = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1 },
    email: { type: 'string', format: 'email' },
    tier: { type: 'string', enum: ['free', 'pro'] },
    address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  required: ['id'],
  additionalProperties: false,
};

t.test('valid arguments pass; the same schema object is reused across calls', async (t) => {
  const validator = createJsonSchemaValidator();
  t.same(validator.validate(contact, { id: 'c1', email: 'ada@example.com', tier: 'pro', address: { city: 'Lyon' } }), { ok: true });
  t.same(validator.validate(contact, { id: 'c2' }), { ok: true });
});

t.test('every broken rule is reported with a JSON Pointer path and the keyword, never the offending value', async (t) => {
  const validator = createJsonSchemaValidator();
  const result = validator.validate(contact, { email: 'not-an-email-SECRET', tier: 'gold-SECRET', address: {}, 'we/ird~key': 'SECRET' });
  if (result.ok) return t.fail('expected issues');
  t.same(
    result.issues.map((i) => [i.path, i.rule]),
    [
      ['/id', 'required'],
      ['/we~1ird~0key', 'additionalProperties'],
      ['/email', 'format'],
      ['/tier', 'enum'],
      ['/address/city', 'required'],
    ],
  );
  t.notMatch(JSON.stringify(result), /SECRET/);
  t.match(result.issues.find((i) => i.rule === 'enum')!.message, /"free", "pro"/, 'allowed values come from the schema');
  t.match(formatIssues(result.issues), /^\/id: must have required property 'id' \(required\); /);
  t.equal(formatIssues([{ path: '', rule: 'type', message: 'must be object' }]), '(root): must be object (type)');
});

t.test('the number of reported issues is bounded', async (t) => {
  const validator = createJsonSchemaValidator({ maxIssues: 3 });
  const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { type: 'integer' }])) };
  const result = validator.validate(wide, Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, 'x'])));
  t.equal(result.ok ? 0 : result.issues.length, 3);
});

t.test('2020-12 is the default dialect; a schema declaring draft-07 is read as draft-07', async (t) => {
  const validator = createJsonSchemaValidator();
  const tuple2020 = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false };
  t.same(validator.validate(tuple2020, ['a', 1]), { ok: true });
  t.match(validator.validate(tuple2020, ['a', 'b']), { ok: false, issues: [{ path: '/1', rule: 'type' }] });
  t.match(validator.validate(tuple2020, ['a', 1, 2]), { ok: false, issues: [{ path: '', rule: 'items' }] });
  const tuple07 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false };
  t.same(validator.validate(tuple07, ['a', 1]), { ok: true });
  t.match(validator.validate(tuple07, ['a', 'b']), { ok: false, issues: [{ path: '/1', rule: 'type' }] });
});

t.test('vendor keywords are tolerated; a schema that cannot compile is reported, not thrown', async (t) => {
  const validator = createJsonSchemaValidator();
  t.same(validator.checkSchema({ type: 'object', 'x-display': 'card', properties: { a: { type: 'string', format: 'made-up' } } }), { ok: true });
  const broken = { type: 'object', properties: { a: { type: 'nonsense' } } };
  t.match(validator.checkSchema(broken), { ok: false, issues: [{ path: '', rule: 'schema', message: /input schema is invalid/ }] });
  t.match(validator.validate(broken, { a: 1 }), { ok: false, issues: [{ rule: 'schema' }] });
});

t.test('two tools whose schemas share an $id do not collide', async (t) => {
  const validator = createJsonSchemaValidator();
  const one = { $id: 'https://example.com/args', type: 'object', required: ['a'] };
  const two = { $id: 'https://example.com/args', type: 'object', required: ['b'] };
  t.same(validator.validate(one, { a: 1 }), { ok: true });
  t.same(validator.validate(two, { b: 1 }), { ok: true });
  t.match(validator.validate(two, { a: 1 }), { ok: false, issues: [{ path: '/b', rule: 'required' }] });
});
