// Guards `openai-compatible:<name>/<model>` against a local server speaking Chat Completions SSE (Ollama, vLLM, llama.cpp shape).
import t from 'tap';
import { isModelError } from '../../../runtime/models/model-error.js';
import type { StepChunk } from '../../../runtime/models/model.js';
import { resolveModel } from '../../../runtime/models/resolve-model.js';
import { startFakeProvider } from './fake-provider.js';
import { API_KEY, collect, failure, firstStep, secondStep, textOf } from './step-fixtures.js';
import { chatCompletionsSse } from './wire-formats.js';

const scenario = {
  text: ['Looking ', 'up the ', 'contact.'],
  tool: { id: 'call_1', name: 'crm__get_contact', argChunks: ['{"id":', '"c-1"}'] },
  usage: { input: 81, output: 17 },
};

const configFor = (origin: string, apiKey?: string) => ({
  openaiCompatible: { 'local-llm': { baseURL: `${origin}/v1`, apiKey } },
  maxRetries: 0,
});

t.test('streams text deltas, a tool call with parsed args under its wire id, usage and finish reason', async (t) => {
  const server = await startFakeProvider(() => ({ sse: chatCompletionsSse(scenario) }));
  t.teardown(server.close);
  const port = resolveModel('openai-compatible:local-llm/llama3.1:8b', configFor(server.origin, API_KEY));
  t.equal(port.id, 'openai-compatible:local-llm/llama3.1:8b');

  const chunks = await collect(port, firstStep);
  t.same(textOf(chunks), ['Looking ', 'up the ', 'contact.'], 'each upstream delta arrives as its own text-delta');
  t.same(chunks.filter((c) => c.type === 'tool-call'), [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'crm.get_contact', args: { id: 'c-1' } }]);
  t.same(chunks.at(-1), { type: 'finish', usage: { inputTokens: 81, outputTokens: 17 }, reason: 'tool-calls' });

  const [request] = server.requests;
  t.equal(request.method, 'POST');
  t.equal(request.path, '/v1/chat/completions');
  t.equal(request.headers.authorization, `Bearer ${API_KEY}`, 'API key as a bearer token');
  t.equal(request.body.model, 'llama3.1:8b');
  t.equal(request.body.stream, true);
  t.same(request.body.stream_options, { include_usage: true }, 'asks for the usage chunk');
  t.equal(request.body.messages[0].role, 'system');
  t.match(request.body.messages[0].content, /Never guess customer data\.[\s\S]*#crm\.get_contact[\s\S]*Pro customers get priority support\./);
  t.same(request.body.messages[1], { role: 'user', content: 'What tier is contact c-1?' });
  t.equal(request.body.tools[0].function.name, 'crm__get_contact', 'dots are encoded for the provider');
  t.match(request.body.tools[0].function.description, /^\[crm\.get_contact\] Fetch one contact by id\./);
  t.same(request.body.tools[0].function.parameters.properties, { id: { type: 'string' } });
});

t.test('a follow-up step sends the assistant tool call and its result back in the chat format', async (t) => {
  const server = await startFakeProvider(() => ({ sse: chatCompletionsSse({ text: ['Contact c-1 is ', 'on pro.'], usage: { input: 120, output: 9 } }) }));
  t.teardown(server.close);
  const chunks = await collect(resolveModel('openai-compatible:local-llm/m', configFor(server.origin)), secondStep);
  t.equal(textOf(chunks).join(''), 'Contact c-1 is on pro.');
  t.match(chunks.at(-1), { type: 'finish', reason: 'stop', usage: { inputTokens: 120, outputTokens: 9 } });

  const { body, headers } = server.requests[0];
  t.equal(headers.authorization, undefined, 'no key configured, no Authorization header (local servers)');
  t.match(body.messages[2], {
    role: 'assistant',
    content: 'Looking up the contact.',
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'crm__get_contact', arguments: '{"id":"c-1"}' } }],
  });
  t.match(body.messages[3], { role: 'tool', tool_call_id: 'call_1' });
  t.same(JSON.parse(body.messages[3].content), { id: 'c-1', tier: 'pro' });
});

t.test('deltas are streamed as they arrive, not buffered until the response ends', { timeout: 15000 }, async (t) => {
  const server = await startFakeProvider(() => ({ sse: chatCompletionsSse({ ...scenario, pauseAfterFirstDelta: true }) }));
  t.teardown(server.close);
  const seen: StepChunk[] = [];
  // The server holds the rest of the stream until we have seen the first delta; buffering would deadlock.
  const chunks = await collect(resolveModel('openai-compatible:local-llm/m', configFor(server.origin)), firstStep, {
    onChunk: (chunk) => {
      seen.push(chunk);
      if (seen.length === 1) server.release();
    },
  });
  t.same(seen[0], { type: 'text-delta', text: 'Looking ' });
  t.equal(chunks.length, 5);
});

t.test('a call to a tool the model was not given is flagged invalid, not dropped or run', async (t) => {
  const server = await startFakeProvider(() => ({
    sse: chatCompletionsSse({ text: [], tool: { id: 'call_9', name: 'billing__refund', argChunks: ['{}'] }, usage: { input: 1, output: 1 } }),
  }));
  t.teardown(server.close);
  const chunks = await collect(resolveModel('openai-compatible:local-llm/m', configFor(server.origin)), firstStep);
  const call = chunks.find((c) => c.type === 'tool-call');
  t.match(call, { type: 'tool-call', toolCallId: 'call_9', toolName: 'billing__refund', invalid: String });
});

t.test('a provider HTTP error becomes a typed model failure with the status, not a crash', async (t) => {
  const server = await startFakeProvider(() => ({ status: 404, json: { error: { message: 'model "nope" not found, try pulling it first', type: 'api_error' } } }));
  t.teardown(server.close);
  const error = await failure(collect(resolveModel('openai-compatible:local-llm/nope', configFor(server.origin, API_KEY)), firstStep));
  t.ok(isModelError(error, 'PROVIDER_REJECTED'), 'PROVIDER_REJECTED');
  if (!isModelError(error)) return;
  t.equal(error.upstreamStatus, 404);
  t.equal(error.retryable, false);
  t.equal(error.provider, 'openai-compatible:local-llm');
  t.match(error.message, /HTTP 404: model "nope" not found/);
});

t.test('an overloaded server (503) is a retryable PROVIDER_UNAVAILABLE', async (t) => {
  const server = await startFakeProvider(() => ({ status: 503, json: { error: { message: 'server busy' } } }));
  t.teardown(server.close);
  const error = await failure(collect(resolveModel('openai-compatible:local-llm/m', configFor(server.origin)), firstStep));
  t.ok(isModelError(error, 'PROVIDER_UNAVAILABLE'));
  t.equal(isModelError(error) && error.retryable, true);
  t.equal(server.requests.length, 1, 'maxRetries: 0 means one attempt');
});

t.test('an unreachable server is a retryable PROVIDER_UNAVAILABLE', async (t) => {
  const server = await startFakeProvider(() => ({ status: 500, json: {} }));
  const origin = server.origin;
  await server.close();
  const error = await failure(collect(resolveModel('openai-compatible:local-llm/m', configFor(origin)), firstStep));
  t.ok(isModelError(error, 'PROVIDER_UNAVAILABLE'));
  t.match(isModelError(error) ? error.message : '', /Could not reach openai-compatible:local-llm/);
});

t.test('aborting mid-stream ends the step with ModelError ABORTED', { timeout: 15000 }, async (t) => {
  const server = await startFakeProvider(() => ({ sse: chatCompletionsSse({ ...scenario, pauseAfterFirstDelta: true }) }));
  t.teardown(server.close);
  const controller = new AbortController();
  const error = await failure(
    collect(resolveModel('openai-compatible:local-llm/m', configFor(server.origin)), firstStep, {
      signal: controller.signal,
      onChunk: () => controller.abort(),
    }),
  );
  t.ok(isModelError(error, 'ABORTED'), `ABORTED (got ${String(error)})`);
});
