// Guards builtin:procedure: #tool references called in order, one per step, args from JSON or key: value lines, then a summary.
import t from 'tap';
import { createBuiltinProcedureModel, KNOWLEDGE_SEARCH_TOOL } from '../../../runtime/models/builtin-procedure.model.js';
import type { ConversationMessage, StepChunk, StepInput, ToolResult, ToolSpec } from '../../../runtime/models/model.js';
import { isModelError } from '../../../runtime/models/model-error.js';
import { resolveModel } from '../../../runtime/models/resolve-model.js';

const getContact: ToolSpec = {
  name: 'crm.get_contact',
  description: 'Fetch a contact',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
};
const updateTier: ToolSpec = {
  name: 'crm.update_tier',
  description: 'Change a tier',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'string' }, tier: { type: 'string' }, seats: { type: 'integer' }, notify: { type: 'boolean' } },
  },
};
const knowledgeSearch: ToolSpec = {
  name: KNOWLEDGE_SEARCH_TOOL,
  description: 'Search knowledge',
  inputSchema: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } } },
};

const model = createBuiltinProcedureModel();

function input(procedure: string, messages: ConversationMessage[], tools: ToolSpec[] = [getContact, updateTier]): StepInput {
  return { system: { principles: 'Be brief.', procedure, knowledge: [] }, messages, tools };
}

async function run(step: StepInput, signal = new AbortController().signal): Promise<StepChunk[]> {
  const chunks: StepChunk[] = [];
  for await (const chunk of model.step(step, signal)) chunks.push(chunk);
  return chunks;
}

const text = (chunks: StepChunk[]) => chunks.flatMap((c) => (c.type === 'text-delta' ? [c.text] : [])).join('');
const calls = (chunks: StepChunk[]) => chunks.filter((c) => c.type === 'tool-call');

/** Plays the turn engine: runs each step's single call through `execute` until the model answers. */
async function drive(step: StepInput, execute: (name: string, args: Record<string, unknown>) => ToolResult) {
  const messages = [...step.messages];
  const issued: Array<{ toolName: string; args: Record<string, unknown> }> = [];
  for (let i = 0; i < 10; i += 1) {
    const chunks = await run({ ...step, messages });
    const stepCalls = calls(chunks);
    if (stepCalls.length === 0) return { issued, chunks, answer: text(chunks) };
    const call = stepCalls[0];
    if (call.type !== 'tool-call') throw new Error('unreachable');
    issued.push({ toolName: call.toolName, args: call.args });
    messages.push({ role: 'assistant', text: text(chunks), toolCalls: [{ toolCallId: call.toolCallId, toolName: call.toolName, args: call.args }] });
    messages.push({ role: 'tool', toolCallId: call.toolCallId, toolName: call.toolName, result: execute(call.toolName, call.args) });
  }
  throw new Error('the builtin model did not finish within 10 steps');
}

t.test('resolveModel("builtin:procedure") needs no configuration and keeps its id', async (t) => {
  const port = resolveModel(' builtin:procedure ', {});
  t.equal(port.id, 'builtin:procedure');
});

t.test('calls the procedure\'s #tool references in order of appearance, one tool call per step, each once', async (t) => {
  const procedure = 'First #crm.update_tier, then look at #crm.get_contact. Repeat #crm.update_tier never.';
  const first = await run(input(procedure, [{ role: 'user', text: '{"id":"c-1","tier":"pro"}' }]));
  t.equal(calls(first).length, 1, 'exactly one call in the first step');
  t.match(first.at(-1), { type: 'finish', reason: 'tool-calls' }, 'finish is last and says tool-calls');
  t.equal(text(first), '', 'no text in a tool-call step');

  const { issued } = await drive(input(procedure, [{ role: 'user', text: '{"id":"c-1","tier":"pro"}' }]), () => ({ ok: true, output: {} }));
  t.same(issued.map((c) => c.toolName), ['crm.update_tier', 'crm.get_contact'], 'order of first appearance, no repeats');
});

t.test('takes arguments from a JSON object in the latest user message, keeping only schema properties', async (t) => {
  const messages: ConversationMessage[] = [
    { role: 'user', text: '{"id":"old"}' },
    { role: 'assistant', text: 'done', toolCalls: [] },
    { role: 'user', text: 'Please update {"id":"c-9","tier":"team","seats":5,"extra":"dropped","notify":false} thanks' },
  ];
  const { issued } = await drive(input('#crm.get_contact then #crm.update_tier', messages), () => ({ ok: true, output: {} }));
  t.same(issued, [
    { toolName: 'crm.get_contact', args: { id: 'c-9' } },
    { toolName: 'crm.update_tier', args: { id: 'c-9', tier: 'team', seats: 5, notify: false } },
  ]);
});

t.test('falls back to key: value lines, typed by the schema, matching keys exact first then ignoring case', async (t) => {
  const message = 'Please change the tier.\nID: c-2\nid: c-3\ntier: "enterprise"\nseats: 12\nnotify: TRUE\nother: x';
  const { issued } = await drive(input('#crm.update_tier', [{ role: 'user', text: message }]), () => ({ ok: true, output: {} }));
  t.same(issued[0].args, { id: 'c-3', tier: 'enterprise', seats: 12, notify: true });
});

t.test('a tool with no matching fields is still called, with empty args (the tool validates)', async (t) => {
  const chunks = await run(input('#crm.get_contact', [{ role: 'user', text: 'hello there' }]));
  t.match(calls(chunks), [{ toolName: 'crm.get_contact', args: {} }]);
});

t.test('ends with a summary quoting each result as compact JSON, streamed as several deltas', async (t) => {
  const outputs: Record<string, unknown> = {
    'crm.get_contact': { id: 'c-1', tier: 'pro' },
    'crm.update_tier': { id: 'c-1', tier: 'team', changed: true },
  };
  const { chunks, answer } = await drive(
    input('#crm.get_contact then #crm.update_tier', [{ role: 'user', text: 'id: c-1\ntier: team' }]),
    (name) => ({ ok: true, output: outputs[name] }),
  );
  t.ok(chunks.filter((c) => c.type === 'text-delta').length > 1, 'more than one text delta');
  t.match(chunks.at(-1), { type: 'finish', reason: 'stop' });
  t.match(answer, /Called 2 tools\./);
  t.match(answer, 'crm.get_contact: {"id":"c-1","tier":"pro"}');
  t.match(answer, 'crm.update_tier: {"id":"c-1","tier":"team","changed":true}');
});

t.test('a large output is reduced to its top-level scalar facts, still valid JSON', async (t) => {
  const big = { id: 'c-1', status: 'active', history: Array.from({ length: 200 }, (_, i) => ({ i })) };
  const { answer } = await drive(input('#crm.get_contact', [{ role: 'user', text: 'id: c-1' }]), () => ({ ok: true, output: big }));
  t.match(answer, 'crm.get_contact: {"id":"c-1","status":"active"}');
});

t.test('an error result is summarized with the tool that failed and its code', async (t) => {
  const { issued, answer } = await drive(input('#crm.get_contact then #crm.update_tier', [{ role: 'user', text: 'id: c-404' }]), (name) =>
    name === 'crm.get_contact'
      ? { ok: false, error: { code: 'NOT_FOUND', message: 'No contact c-404' } }
      : { ok: true, output: { ok: true } },
  );
  t.equal(issued.length, 2, 'a failure does not stop the procedure');
  t.match(answer, 'Called 2 tools, 1 failed.');
  t.match(answer, 'crm.get_contact failed: NOT_FOUND (No contact c-404)');
  t.match(answer, 'crm.update_tier: {"ok":true}');
});

t.test('references to tools not available to the agent are skipped and mentioned', async (t) => {
  const { issued, answer } = await drive(
    input('#billing.refund first, then #crm.get_contact', [{ role: 'user', text: 'id: c-1' }], [getContact]),
    () => ({ ok: true, output: { id: 'c-1' } }),
  );
  t.same(issued.map((c) => c.toolName), ['crm.get_contact']);
  t.match(answer, 'Skipped #billing.refund: not available to this agent.');
  const none = await run(input('#billing.refund', [{ role: 'user', text: 'x' }], [getContact]));
  t.equal(calls(none).length, 0);
  t.match(text(none), /^No tools were called\.\nSkipped #billing\.refund/);
});

t.test('a procedure without tool references answers with a deterministic acknowledgement quoting the message', async (t) => {
  const step = input('Greet the customer politely.', [{ role: 'user', text: 'Hello, I need help with my invoice.' }]);
  const a = await run(step);
  const b = await run(step);
  t.equal(text(a), 'Acknowledged: "Hello, I need help with my invoice."');
  t.same(a, b, 'same input, same chunks');
  t.equal(calls(a).length, 0);
  t.match(a.at(-1), { type: 'finish', reason: 'stop', usage: { inputTokens: Number, outputTokens: Number } });
  const usage = (a.at(-1) as Extract<StepChunk, { type: 'finish' }>).usage;
  t.ok(usage.inputTokens > 0 && usage.outputTokens > 0, 'usage is estimated, not zero');
});

t.test('calls #knowledge.search with the query: line, else the whole message as query', async (t) => {
  const tools = [knowledgeSearch, getContact];
  const fromLine = await run(input('Use #knowledge.search', [{ role: 'user', text: 'Need the refund rules\nquery: refund policy\nlimit: 3' }], tools));
  t.match(calls(fromLine), [{ toolName: 'knowledge.search', args: { query: 'refund policy', limit: 3 } }]);
  const whole = await run(input('Use #knowledge.search', [{ role: 'user', text: '  How do refunds work?  ' }], tools));
  t.match(calls(whole), [{ toolName: 'knowledge.search', args: { query: 'How do refunds work?' } }]);
});

t.test('each new user message starts a new turn: the tools run again, with call ids unique in the session', async (t) => {
  const procedure = '#crm.get_contact';
  const first = await drive(input(procedure, [{ role: 'user', text: 'id: c-1' }]), () => ({ ok: true, output: { id: 'c-1' } }));
  t.equal(first.issued.length, 1);
  const history: ConversationMessage[] = [
    { role: 'user', text: 'id: c-1' },
    { role: 'assistant', text: '', toolCalls: [{ toolCallId: 'proc-1', toolName: 'crm.get_contact', args: { id: 'c-1' } }] },
    { role: 'tool', toolCallId: 'proc-1', toolName: 'crm.get_contact', result: { ok: true, output: {} } },
    { role: 'assistant', text: 'summary', toolCalls: [] },
    { role: 'user', text: 'id: c-2' },
  ];
  const next = await run(input(procedure, history));
  t.match(calls(next), [{ toolCallId: 'proc-2', toolName: 'crm.get_contact', args: { id: 'c-2' } }]);
});

t.test('an aborted signal ends the step with ModelError ABORTED', async (t) => {
  const controller = new AbortController();
  controller.abort();
  const error = await run(input('#crm.get_contact', [{ role: 'user', text: 'id: 1' }]), controller.signal).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  t.ok(isModelError(error, 'ABORTED'), 'typed ABORTED failure');
});
