// A turn driven by a provider model (openai-compatible, real Chat Completions SSE on 127.0.0.1): tool call, result, answer.
import t from 'tap';
import { chatCompletionsSse } from '../models/wire-formats.js';
import { startFakeProvider, type RecordedRequest } from '../models/fake-provider.js';
import { conversationWorkspace, startConversation } from '../../http/sessions/conversation-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

const hasToolResult = (request: RecordedRequest) => (request.body.messages as Array<{ role: string }>).some((m) => m.role === 'tool');

t.test('the model calls a bound tool, sees its result on the next step, and its streamed answer completes the turn', async (t) => {
  const provider = await startFakeProvider((request) =>
    hasToolResult(request)
      ? { sse: chatCompletionsSse({ text: ['Contact c-1 ', 'is on the ', 'pro tier.'], usage: { input: 120, output: 9 } }) }
      : { sse: chatCompletionsSse({ text: [], tool: { id: 'call_1', name: 'crm__get_contact', argChunks: ['{"id":', '"c-1"}'] }, usage: { input: 100, output: 12 } }) },
  );
  t.teardown(() => provider.close());
  // The model layer reads its provider settings from the environment (runtime/models/model-config.ts).
  process.env.SWITCHYARD_OPENAI_COMPATIBLE_LOCAL_BASE_URL = provider.origin;
  t.teardown(() => delete process.env.SWITCHYARD_OPENAI_COMPATIBLE_LOCAL_BASE_URL);
  const c = await startConversation(t, {
    manifest: (base) => {
      const manifest = conversationWorkspace(base);
      manifest.organizations[0].agents.push({
        ref: 'assistant',
        domain: 'sales',
        name: 'Assistant',
        setup: { principles: 'Answer in one sentence.', procedure: 'Look the contact up with #crm.get_contact.', model: 'openai-compatible:local/m1', approvalTools: [] },
        bindings: { crm: 'caller_preferred' },
        publish: true,
      });
      return manifest;
    },
  });
  const opened = await c.open('assistant', 'ada', { message: 'Which tier is c-1 on?' });
  t.equal(opened.status, 202);
  await c.settle();

  const view = (await c.get(`/agents/sessions/${opened.json.sessionId}`, 'ada')).json;
  t.equal(view.latestTurn.status, 'completed');
  t.equal(view.messages.at(-1).text, 'Contact c-1 is on the pro tier.');
  t.match(view.toolCalls, [{ toolName: 'crm.get_contact', args: { id: 'c-1' }, status: 'succeeded', identity: 'organization' }]);
  t.equal(c.upstream.received[0]!.pathname, '/contacts/c-1');

  t.equal(provider.requests.length, 2);
  const [first, second] = provider.requests;
  const toolNames = first!.body.tools.map((tool: { function: { name: string } }) => tool.function.name).sort();
  t.same(toolNames, ['crm__export_contact', 'crm__get_contact', 'crm__update_contact'], 'every tool of the belt\'s integrations');
  t.match(JSON.stringify(first!.body.messages[0]), /Answer in one sentence/);
  const toolMessage = second!.body.messages.find((m: { role: string }) => m.role === 'tool');
  t.match(toolMessage.content, /pro/);
  t.notOk(JSON.stringify(provider.requests).includes('org-token-123'), 'connection material never goes to the model');

  const deltas = (await sqlReader(c.server.service).all("SELECT payload FROM session_events WHERE session_id = ? AND type = 'message.delta' ORDER BY seq", opened.json.sessionId)) as Array<{ payload: string }>;
  t.equal(deltas.map((d) => JSON.parse(d.payload).text).join(''), 'Contact c-1 is on the pro tier.');
  const usage = (await sqlReader(c.server.service).get('SELECT steps_used, tokens_used FROM executions WHERE id = ?', opened.json.executionId));
  t.same(usage, { steps_used: 2, tokens_used: 241 });
});

t.test('an unconfigured provider fails the turn with the model layer\'s reason', async (t) => {
  const saved = process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_API_KEY;
  t.teardown(() => {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
  });
  const c = await startConversation(t, {
    manifest: (base) => {
      const manifest = conversationWorkspace(base);
      manifest.organizations[0].agents.push({
        ref: 'remote',
        domain: 'sales',
        name: 'Remote',
        setup: { principles: '', procedure: 'Answer.', model: 'anthropic:claude-sonnet-4', approvalTools: [] },
        publish: true,
      });
      return manifest;
    },
  });
  const opened = await c.open('remote', 'ada', { message: 'hello' });
  await c.settle();
  const view = (await c.get(`/agents/sessions/${opened.json.sessionId}`, 'ada')).json;
  t.same(view.latestTurn, { executionId: opened.json.executionId, status: 'failed', errorCode: 'PROVIDER_NOT_CONFIGURED' });
});
