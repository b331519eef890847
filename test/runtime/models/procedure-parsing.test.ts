// Guards the builtin model's readers: #tool references in a procedure, JSON / key: value arguments, provider-safe tool names.
import t from 'tap';
import { extractToolArgs, findJsonObject } from '../../../runtime/models/procedure-args.js';
import { procedureToolReferences } from '../../../runtime/models/procedure-refs.js';
import { createToolNameMap } from '../../../runtime/models/tool-names.js';

t.test('finds #integration.tool references in order, once each, and nothing else', async (t) => {
  const procedure = [
    'Start with #crm.get_contact.',
    'If needed (#billing.refund), call `#crm.get_contact` again.',
    'Not references: #crm alone, crm.get_contact without hash, https://x.test/#a.b, foo#bar.baz, ##x.y',
    '- #knowledge.search for policies',
  ].join('\n');
  t.same(procedureToolReferences(procedure), ['crm.get_contact', 'billing.refund', 'knowledge.search']);
  t.same(procedureToolReferences('No tools here.'), []);
});

t.test('finds a JSON object in prose, skipping brace text that is not JSON and braces inside strings', async (t) => {
  t.same(findJsonObject('{"id":"c-1"}'), { id: 'c-1' });
  t.same(findJsonObject('Hi {name}, use {"note":"a } brace","n":1} now'), { note: 'a } brace', n: 1 });
  t.same(findJsonObject('{"outer":{"inner":true}}'), { outer: { inner: true } });
  t.equal(findJsonObject('["an","array"] and {unclosed'), undefined);
  t.equal(findJsonObject('id: 1\nmeta: {"k":{"nested":1}}', (key) => key === 'meta'), undefined, 'a field\'s value is not the message\'s object');
  t.same(findJsonObject('Details: {"id":"c-1"}', (key) => key === 'id'), { id: 'c-1' }, 'a non-field label does not hide it');
});

t.test('JSON arguments keep their JSON types; key: value lines are typed by the schema', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      count: { type: 'integer' },
      ratio: { type: 'number' },
      tags: { type: 'array' },
      meta: { type: 'object' },
      flag: { type: ['boolean', 'null'] },
    },
  };
  t.same(extractToolArgs('{"id":7,"count":"3","junk":1}', schema), { id: 7, count: '3' }, 'JSON values are not coerced');
  t.same(
    extractToolArgs('id: 007\ncount: 3\nratio: 0.5\ntags: ["a","b"]\nmeta: {"k":1}\nflag: false\n- Count: 9', schema),
    { id: '007', count: 3, ratio: 0.5, tags: ['a', 'b'], meta: { k: 1 }, flag: false },
    'strings stay strings, numbers/booleans/JSON parse by declared type, first exact key wins',
  );
  t.same(extractToolArgs('count: three\nratio: 1.5.2', schema), { count: 'three', ratio: '1.5.2' }, 'unreadable values stay text for the tool to reject');
  t.same(extractToolArgs('id: x', { type: 'object' }), {}, 'a schema without properties accepts nothing');
});

t.test('tool names are encoded for providers (no dots, at most 64 chars), unique, and map back', async (t) => {
  const long = `integration.${'x'.repeat(80)}`;
  const names = createToolNameMap(['crm.get_contact', 'crm__get_contact.x', 'crm_.get_contact', 'crm._get_contact', long]);
  const encoded = ['crm.get_contact', 'crm_.get_contact', 'crm._get_contact', long].map((id) => names.toProvider(id));
  t.equal(encoded[0], 'crm__get_contact');
  for (const name of encoded) t.match(name, /^[A-Za-z0-9_-]{1,64}$/);
  t.equal(new Set(encoded).size, encoded.length, 'colliding encodings get distinct names');
  t.same(encoded.map((name) => names.toWire(name)), ['crm.get_contact', 'crm_.get_contact', 'crm._get_contact', long]);
  t.equal(names.toWire('made_up'), undefined);
});
