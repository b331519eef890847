// Tool names: slug of the agent name + 12 hex digits of its id, at most 64 of [a-zA-Z0-9_-], stable.
import t from 'tap';
import { slugOf, toolNameOf, TOOL_NAME_PATTERN } from '../../../runtime/mcp/agent-tool-name.js';

const ID = '0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71';

t.test('slug + id suffix', async (t) => {
  t.equal(toolNameOf({ id: ID, name: 'Contact lookup' }), 'contact_lookup_2d5b3f4e6a71');
  t.equal(toolNameOf({ id: ID.toUpperCase(), name: 'Contact lookup' }), 'contact_lookup_2d5b3f4e6a71', 'case of the id does not matter');
  t.equal(slugOf('  Crème brûlée — v2!  '), 'creme_brulee_v2');
  t.equal(slugOf('日本語'), 'agent', 'nothing left: a neutral word');
  t.equal(slugOf('---'), 'agent');
});

t.test('always within 64 characters of the allowed alphabet, however long or odd the name', async (t) => {
  for (const name of ['x'.repeat(120), 'a b '.repeat(40), `${'y'.repeat(50)} ${'z'.repeat(50)}`, '🙂 emoji agent', 'tab\tand\nnewline']) {
    const tool = toolNameOf({ id: ID, name });
    t.ok(tool.length <= 64, `${tool.length} chars`);
    t.match(tool, TOOL_NAME_PATTERN);
    t.notMatch(tool, /__/, 'no doubled separators');
  }
});

t.test('agents with the same name differ by their ids', async (t) => {
  const a = toolNameOf({ id: ID, name: 'Helper' });
  const b = toolNameOf({ id: '0190f3c4-7b2a-7cc1-8a55-9e8d7c6b5a40', name: 'Helper' });
  t.not(a, b);
});
