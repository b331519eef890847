// Guards `anthropic:<model>` against a local server speaking the Anthropic Messages SSE stream.
import t from 'tap';
import { isModelError } from '../../../runtime/models/model-error.js';
import { resolveModel } from '../../../runtime/models/resolve-model.js';
import type { ModelConfig } from '../../../runtime/models/model-config.js';
import type { StepChunk } from '../../../runtime/models/model.js';
import { startFakeProvider } from './fake-provider.js';
import { API_KEY, collect, failure, firstStep, secondStep, textOf } from './step-fixtures.js';
import { anthropicSse } from './wire-formats.js';

const scenario = {
  text: ['Looking ', 'up the ', 'contact.'],
  tool: { id: 'toolu_01A', name: 'crm__get_contact', argChunks: ['{"id": ', '"c-1"}'] },
  usage: { input: 412, output: 58 },
};

const configFor = (origin: string): ModelConfig => ({ anthropic: { apiKey: API_KEY, baseURL: `${origin}/v1` }, maxRetries: 0 });

t.test('streams text deltas, a tool_use call with parsed args, usage; key in x-api-key', { timeout: 15000 }, async (t) => {
  const server = await startFakeProvider(() => ({ sse: anthropicSse({ ...scenario, pauseAfterFirstDelta: true }) }));
  t.teardown(server.close);
  const seen: StepChunk[] = [];
  const chunks = await collect(resolveModel('anthropic:claude-sonnet-4-5', configFor(server.origin)), firstStep, {
    // The server holds the rest until the first delta is seen here: proves streaming, not buffering.
    onChunk: (chunk) => {
      seen.push(chunk);
      if (seen.length === 1) server.release();
    },
  });
  t.same(textOf(chunks), ['Looking ', 'up the ', 'contact.']);
  t.same(chunks.filter((c) => c.type === 'tool-call'), [{ type: 'tool-call', toolCallId: 'toolu_01A', toolName: 'crm.get_contact', args: { id: 'c-1' } }]);
  t.same(chunks.at(-1), { type: 'finish', usage: { inputTokens: 412, outputTokens: 58 }, reason: 'tool-calls' });

  const [request] = server.requests;
  t.equal(request.path, '/v1/messages');
  t.equal(request.headers['x-api-key'], API_KEY, 'API key in x-api-key');
  t.equal(request.headers.authorization, undefined, 'and not as a bearer token');
  t.equal(request.headers['anthropic-version'], '2023-06-01');
  t.equal(request.body.model, 'claude-sonnet-4-5');
  t.equal(request.body.stream, true);
  t.match(JSON.stringify(request.body.system), /Never guess customer data\./);
  t.match(request.body.messages, [{ role: 'user', content: [{ type: 'text', text: 'What tier is contact c-1?' }] }]);
  t.match(request.body.tools, [{ name: 'crm__get_contact', description: /^\[crm\.get_contact\]/, input_schema: { type: 'object' } }]);
});

t.test('a follow-up step sends tool_use and tool_result blocks', async (t) => {
  const server = await startFakeProvider(() => ({ sse: anthropicSse({ text: ['c-1 is ', 'on pro.'], usage: { input: 500, output: 7 } }) }));
  t.teardown(server.close);
  const chunks = await collect(resolveModel('anthropic:claude-sonnet-4-5', configFor(server.origin)), secondStep);
  t.equal(textOf(chunks).join(''), 'c-1 is on pro.');
  t.match(chunks.at(-1), { type: 'finish', reason: 'stop', usage: { inputTokens: 500, outputTokens: 7 } });
  const messages = server.requests[0].body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
  t.match(messages[1], { role: 'assistant', content: [{ type: 'text', text: 'Looking up the contact.' }, { type: 'tool_use', id: 'call_1', name: 'crm__get_contact', input: { id: 'c-1' } }] });
  const result = messages[2].content.find((block) => block.type === 'tool_result');
  t.match(result, { tool_use_id: 'call_1' });
  t.match(JSON.stringify(result?.content), /\\"tier\\":\\"pro\\"/);
});

t.test('an error tool result is sent as a tool_result with is_error', async (t) => {
  const server = await startFakeProvider(() => ({ sse: anthropicSse({ text: ['Not found.'], usage: { input: 1, output: 1 } }) }));
  t.teardown(server.close);
  const failed = {
    ...secondStep,
    messages: [
      ...secondStep.messages.slice(0, 2),
      { role: 'tool' as const, toolCallId: 'call_1', toolName: 'crm.get_contact', result: { ok: false as const, error: { code: 'NOT_FOUND', message: 'No contact c-1' } } },
    ],
  };
  await collect(resolveModel('anthropic:claude-sonnet-4-5', configFor(server.origin)), failed);
  const messages = server.requests[0].body.messages as Array<{ content: Array<Record<string, unknown>> }>;
  const result = messages[2].content.find((block) => block.type === 'tool_result');
  t.match(result, { tool_use_id: 'call_1', is_error: true });
  t.match(JSON.stringify(result?.content), /NOT_FOUND/);
});

t.test('a 401 becomes PROVIDER_REJECTED with the status and no key material', async (t) => {
  const server = await startFakeProvider(() => ({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }));
  t.teardown(server.close);
  const error = await failure(collect(resolveModel('anthropic:claude-sonnet-4-5', configFor(server.origin)), firstStep));
  t.ok(isModelError(error, 'PROVIDER_REJECTED'), 'PROVIDER_REJECTED');
  if (!isModelError(error)) return;
  t.equal(error.upstreamStatus, 401);
  t.equal(error.provider, 'anthropic');
  t.match(error.message, /^anthropic answered HTTP 401: invalid x-api-key/);
  t.notMatch(error.message, API_KEY);
});

t.test('an overloaded API (529) is a retryable PROVIDER_UNAVAILABLE', async (t) => {
  const server = await startFakeProvider(() => ({ status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }));
  t.teardown(server.close);
  const error = await failure(collect(resolveModel('anthropic:claude-sonnet-4-5', configFor(server.origin)), firstStep));
  t.ok(isModelError(error, 'PROVIDER_UNAVAILABLE'));
  t.equal(isModelError(error) && error.retryable, true);
});

t.test('an overloaded error event mid-stream becomes a retryable typed failure, not a crash', async (t) => {
  const server = await startFakeProvider(() => ({
    sse: [
      ...anthropicSse({ text: ['Partial '], usage: { input: 1, output: 1 } }).slice(0, 4),
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    ],
  }));
  t.teardown(server.close);
  const seen: StepChunk[] = [];
  const error = await failure(collect(resolveModel('anthropic:claude-sonnet-4-5', configFor(server.origin)), firstStep, { onChunk: (c) => seen.push(c) }));
  t.same(seen, [{ type: 'text-delta', text: 'Partial ' }], 'the delta before the failure was delivered');
  t.ok(isModelError(error, 'PROVIDER_UNAVAILABLE'), `typed, retryable failure (got ${String(error)})`);
  t.match(isModelError(error) ? error.message : '', 'anthropic failed mid-stream: overloaded_error: Overloaded');
});
