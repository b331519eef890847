// Pure parts of a fire request: Idempotency-Key header rules, the body schema, and the agent message (SPEC Trigger firing 2, 6).
import t from 'tap';
import { AGENT_MESSAGE_MAX, agentMessageFor, renderPayload } from '../../../runtime/triggers/agent-message.js';
import { fireBodySchema } from '../../../runtime/triggers/fire-request.js';
import { idempotencyKeyOf } from '../../../http/request-headers.js';

const req = (headers: Record<string, string>, counts: Record<string, number> = {}) => ({
  headers,
  headerCounts: Object.fromEntries(Object.keys(headers).map((name) => [name, counts[name] ?? 1])),
});

t.test('idempotencyKeyOf: header wins, body is the fallback, repeats and lists are refused', async (t) => {
  t.equal(idempotencyKeyOf(req({ 'idempotency-key': 'h-1' }), 'b-1'), 'h-1');
  t.equal(idempotencyKeyOf(req({}), 'b-1'), 'b-1');
  t.equal(idempotencyKeyOf(req({}), undefined), null);
  t.equal(idempotencyKeyOf(req({ 'idempotency-key': '  h-2 ' }), undefined), 'h-2', 'optional whitespace around a header value is not part of it');
  t.throws(() => idempotencyKeyOf(req({ 'idempotency-key': 'a, a' }, { 'idempotency-key': 2 }), undefined), { code: 'VALIDATION' }, 'repeated header');
  t.throws(() => idempotencyKeyOf(req({ 'idempotency-key': 'a,b' }), undefined), { code: 'VALIDATION' }, 'comma-separated');
  for (const bad of ['', 'x'.repeat(129), 'a b', 'a/b', 'é']) t.throws(() => idempotencyKeyOf(req({ 'idempotency-key': bad }), undefined), { code: 'VALIDATION' }, JSON.stringify(bad));
  t.equal(idempotencyKeyOf(req({ 'idempotency-key': 'A-z_0.9:' + 'x'.repeat(120) }), undefined)?.length, 128);
});

t.test('fireBodySchema strips unknown fields, defaults input to {}, keeps input as sent', async (t) => {
  const triggerId = '01a20378-2ef2-706e-a4ab-ac80f2c8f9ad';
  const input = { b: 1, a: { z: [1, 2] } };
  const parsed = fireBodySchema.parse({ triggerId, input, other: 1 });
  t.same(Object.keys(parsed).sort(), ['input', 'triggerId']);
  t.equal(parsed.input, input, 'the very object: a Flow gets it verbatim');
  t.same(fireBodySchema.parse({ triggerId }).input, {});
  t.notOk(fireBodySchema.safeParse({ triggerId, input: null }).success);
  t.notOk(fireBodySchema.safeParse({ triggerId, idempotencyKey: 'a,b' }).success);
  t.notOk(fireBodySchema.safeParse({ triggerId, callerCredentials: { integrations: {}, extra: 1 } }).success, 'callerCredentials stays strict');
  t.same(fireBodySchema.parse({ triggerId, callerCredentials: { integrations: { crm: {} } } }).callerCredentials, { integrations: { crm: { fallbackAllowed: true } } });
});

t.test('agentMessageFor: input.prompt when present, else the payload rendered as text', async (t) => {
  t.same(agentMessageFor('New lead', { prompt: '  Summarise c-1  ', id: 'c-1' }), { message: 'Summarise c-1' });
  t.same(agentMessageFor('New lead', {}), { message: 'The trigger "New lead" fired with no input.' });
  t.same(agentMessageFor('New lead', { prompt: '   ', id: 'c-1' }), { message: 'The trigger "New lead" fired with this input:\n- prompt: "   "\n- id: c-1' });
  t.same(agentMessageFor('New lead', { prompt: 42 }), { message: 'The trigger "New lead" fired with this input:\n- prompt: 42' });
  t.match(agentMessageFor('New lead', { prompt: 'x'.repeat(AGENT_MESSAGE_MAX + 1) }), { refusal: /8000/ });
  t.same(agentMessageFor('N', { prompt: 'y'.repeat(AGENT_MESSAGE_MAX) }), { message: 'y'.repeat(AGENT_MESSAGE_MAX) });
});

t.test('renderPayload: one line per leaf, dotted paths, JSON for non-strings, within the message limit', async (t) => {
  t.equal(
    renderPayload('Big signup', { contact: { id: 'c-1', seats: 52, tags: ['a', 'b'], meta: {} }, note: 'two\nlines', ok: true, none: null }),
    [
      'The trigger "Big signup" fired with this input:',
      '- contact.id: c-1',
      '- contact.seats: 52',
      '- contact.tags: ["a","b"]',
      '- contact.meta: {}',
      '- note: "two\\nlines"',
      '- ok: true',
      '- none: null',
    ].join('\n'),
  );
  const long = renderPayload('T', { blob: 'z'.repeat(20_000) });
  t.equal(long.length, AGENT_MESSAGE_MAX);
  t.ok(long.endsWith('…'));
});
