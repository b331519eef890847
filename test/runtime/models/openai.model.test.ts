// Guards `openai:<model>` against a local server speaking OpenAI's Responses API SSE (the SDK default) and, with OPENAI_API=chat, Chat Completions.
import t from 'tap';
import { isModelError } from '../../../runtime/models/model-error.js';
import { resolveModel } from '../../../runtime/models/resolve-model.js';
import type { ModelConfig } from '../../../runtime/models/model-config.js';
import type { StepChunk } from '../../../runtime/models/model.js';
import { startFakeProvider } from './fake-provider.js';
import { API_KEY, collect, failure, firstStep, secondStep, textOf } from './step-fixtures.js';
import { chatCompletionsSse, responsesSse } from './wire-formats.js';

const scenario = {
  text: ['Looking ', 'up the ', 'contact.'],
  tool: { id: 'call_abc', name: 'crm__get_contact', argChunks: ['{"id"', ':"c-1"}'] },
  usage: { input: 143, output: 22 },
};

const configFor = (origin: string, api?: 'chat'): ModelConfig => ({
  openai: { apiKey: API_KEY, baseURL: `${origin}/v1`, api },
  maxRetries: 0,
});

t.test('Responses API: streams text deltas, a tool call with parsed args, usage; key as bearer token', { timeout: 15000 }, async (t) => {
  const server = await startFakeProvider(() => ({ sse: responsesSse({ ...scenario, pauseAfterFirstDelta: true }) }));
  t.teardown(server.close);
  const seen: StepChunk[] = [];
  const chunks = await collect(resolveModel('openai:gpt-4.1', configFor(server.origin)), firstStep, {
    // The server holds the rest until the first delta is seen here: proves streaming, not buffering.
    onChunk: (chunk) => {
      seen.push(chunk);
      if (seen.length === 1) server.release();
    },
  });
  t.same(textOf(chunks), ['Looking ', 'up the ', 'contact.']);
  t.same(chunks.filter((c) => c.type === 'tool-call'), [{ type: 'tool-call', toolCallId: 'call_abc', toolName: 'crm.get_contact', args: { id: 'c-1' } }]);
  t.same(chunks.at(-1), { type: 'finish', usage: { inputTokens: 143, outputTokens: 22 }, reason: 'tool-calls' });

  const [request] = server.requests;
  t.equal(request.path, '/v1/responses', 'the SDK default endpoint');
  t.equal(request.headers.authorization, `Bearer ${API_KEY}`);
  t.equal(request.body.model, 'gpt-4.1');
  t.equal(request.body.stream, true);
  t.equal(request.body.store, false, 'conversations are not stored at OpenAI');
  t.match(request.body.input[0], { role: 'system', content: /Never guess customer data\./ });
  t.match(request.body.input[1], { role: 'user', content: [{ type: 'input_text', text: 'What tier is contact c-1?' }] });
  t.match(request.body.tools, [{ type: 'function', name: 'crm__get_contact', description: /^\[crm\.get_contact\]/ }]);
});

t.test('Responses API: a follow-up step sends function_call and function_call_output items', async (t) => {
  const server = await startFakeProvider(() => ({ sse: responsesSse({ text: ['c-1 is ', 'on pro.'], usage: { input: 200, output: 6 } }) }));
  t.teardown(server.close);
  const chunks = await collect(resolveModel('openai:gpt-4.1', configFor(server.origin)), secondStep);
  t.equal(textOf(chunks).join(''), 'c-1 is on pro.');
  t.match(chunks.at(-1), { type: 'finish', reason: 'stop', usage: { inputTokens: 200, outputTokens: 6 } });
  const input = server.requests[0].body.input as Array<Record<string, unknown>>;
  t.match(input.find((item) => item.type === 'function_call'), { call_id: 'call_1', name: 'crm__get_contact', arguments: '{"id":"c-1"}' });
  const output = input.find((item) => item.type === 'function_call_output');
  t.match(output, { call_id: 'call_1' });
  t.same(JSON.parse(String(output?.output)), { id: 'c-1', tier: 'pro' });
});

t.test('OPENAI_API=chat: the same step over Chat Completions', async (t) => {
  const server = await startFakeProvider(() => ({ sse: chatCompletionsSse(scenario) }));
  t.teardown(server.close);
  const chunks = await collect(resolveModel('openai:gpt-4.1', configFor(server.origin, 'chat')), firstStep);
  t.same(textOf(chunks), ['Looking ', 'up the ', 'contact.']);
  t.match(chunks.filter((c) => c.type === 'tool-call'), [{ toolName: 'crm.get_contact', args: { id: 'c-1' } }]);
  t.same(chunks.at(-1), { type: 'finish', usage: { inputTokens: 143, outputTokens: 22 }, reason: 'tool-calls' });
  t.equal(server.requests[0].path, '/v1/chat/completions');
  t.equal(server.requests[0].headers.authorization, `Bearer ${API_KEY}`);
});

t.test('a 401 becomes PROVIDER_REJECTED; the key (even OpenAI\'s masked echo of it) never reaches the message', async (t) => {
  const masked = `${API_KEY.slice(0, 7)}${'*'.repeat(20)}${API_KEY.slice(-4)}`;
  const server = await startFakeProvider(() => ({
    status: 401,
    json: {
      error: {
        message: `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    },
  }));
  t.teardown(server.close);
  const error = await failure(collect(resolveModel('openai:gpt-4.1', configFor(server.origin)), firstStep));
  t.ok(isModelError(error, 'PROVIDER_REJECTED'), 'PROVIDER_REJECTED');
  if (!isModelError(error)) return;
  t.equal(error.upstreamStatus, 401);
  t.equal(error.retryable, false);
  t.match(error.message, /^openai answered HTTP 401: Incorrect API key provided: \[redacted\]/);
  t.notMatch(error.message, API_KEY.slice(-4));
  t.notMatch(JSON.stringify(error.toBody()), API_KEY.slice(0, 8));
});

t.test('a 429 is a retryable PROVIDER_UNAVAILABLE', async (t) => {
  const server = await startFakeProvider(() => ({ status: 429, json: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } }));
  t.teardown(server.close);
  const error = await failure(collect(resolveModel('openai:gpt-4.1', configFor(server.origin)), firstStep));
  t.ok(isModelError(error, 'PROVIDER_UNAVAILABLE'));
  t.match(isModelError(error) && { status: error.upstreamStatus, retryable: error.retryable }, { status: 429, retryable: true });
});
