// Test helper: each provider's real streaming wire format (as their APIs send it) for "text, then one tool call".
import { frame, PAUSE } from './fake-provider.js';

type Script = Array<string | typeof PAUSE>;

export interface Scenario {
  text: string[];
  tool?: { id: string; name: string; argChunks: string[] };
  usage: { input: number; output: number };
  /** Insert a PAUSE after the first text delta (to prove deltas are streamed, not buffered). */
  pauseAfterFirstDelta?: boolean;
}

/** OpenAI Chat Completions (`POST /chat/completions`, stream: true): `data:` chunks, usage chunk, `[DONE]`. */
export function chatCompletionsSse(s: Scenario): Script {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-4.1-2025-04-14', system_fingerprint: 'fp_1' };
  const chunk = (delta: unknown, finish_reason: string | null = null) =>
    frame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason }] });
  const out: Script = [chunk({ role: 'assistant', content: '', refusal: null })];
  s.text.forEach((text, i) => {
    out.push(chunk({ content: text }));
    if (i === 0 && s.pauseAfterFirstDelta) out.push(PAUSE);
  });
  if (s.tool) {
    out.push(chunk({ tool_calls: [{ index: 0, id: s.tool.id, type: 'function', function: { name: s.tool.name, arguments: '' } }] }));
    for (const args of s.tool.argChunks) out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
  }
  out.push(chunk({}, s.tool ? 'tool_calls' : 'stop'));
  out.push(frame({ ...base, choices: [], usage: { prompt_tokens: s.usage.input, completion_tokens: s.usage.output, total_tokens: s.usage.input + s.usage.output } }));
  out.push(frame('[DONE]'));
  return out;
}

/** OpenAI Responses API (`POST /responses`, stream: true): named semantic events with sequence numbers. */
export function responsesSse(s: Scenario): Script {
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>) => frame({ type, sequence_number: seq++, ...body }, type);
  const response = { id: 'resp_1', object: 'response', created_at: 1767225600, model: 'gpt-4.1-2025-04-14', output: [], usage: null };
  const fullText = s.text.join('');
  const out: Script = [
    ev('response.created', { response: { ...response, status: 'in_progress' } }),
    ev('response.in_progress', { response: { ...response, status: 'in_progress' } }),
    ev('response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', status: 'in_progress', content: [], role: 'assistant' } }),
    ev('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', annotations: [], text: '' } }),
  ];
  s.text.forEach((delta, i) => {
    out.push(ev('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta, logprobs: [] }));
    if (i === 0 && s.pauseAfterFirstDelta) out.push(PAUSE);
  });
  const message = { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], text: fullText }] };
  out.push(
    ev('response.output_text.done', { item_id: 'msg_1', output_index: 0, content_index: 0, text: fullText, logprobs: [] }),
    ev('response.content_part.done', { item_id: 'msg_1', output_index: 0, content_index: 0, part: message.content[0] }),
    ev('response.output_item.done', { output_index: 0, item: message }),
  );
  const output: unknown[] = [message];
  if (s.tool) {
    const args = s.tool.argChunks.join('');
    const item = { id: 'fc_1', type: 'function_call', status: 'in_progress', arguments: '', call_id: s.tool.id, name: s.tool.name };
    out.push(ev('response.output_item.added', { output_index: 1, item }));
    for (const delta of s.tool.argChunks) out.push(ev('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 1, delta }));
    out.push(ev('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 1, arguments: args }));
    const done = { ...item, status: 'completed', arguments: args };
    out.push(ev('response.output_item.done', { output_index: 1, item: done }));
    output.push(done);
  }
  const usage = {
    input_tokens: s.usage.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: s.usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: s.usage.input + s.usage.output,
  };
  out.push(ev('response.completed', { response: { ...response, status: 'completed', output, usage } }));
  return out;
}

/** Anthropic Messages (`POST /v1/messages`, stream: true): message_start, content blocks, message_delta, message_stop. */
export function anthropicSse(s: Scenario): Script {
  const ev = (type: string, body: Record<string, unknown> = {}) => frame({ type, ...body }, type);
  const out: Script = [
    ev('message_start', {
      message: {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: s.usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ev('ping'),
  ];
  s.text.forEach((text, i) => {
    out.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }));
    if (i === 0 && s.pauseAfterFirstDelta) out.push(PAUSE);
  });
  out.push(ev('content_block_stop', { index: 0 }));
  if (s.tool) {
    out.push(ev('content_block_start', { index: 1, content_block: { type: 'tool_use', id: s.tool.id, name: s.tool.name, input: {} } }));
    out.push(ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '' } }));
    for (const partial_json of s.tool.argChunks) out.push(ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json } }));
    out.push(ev('content_block_stop', { index: 1 }));
  }
  out.push(ev('message_delta', { delta: { stop_reason: s.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: s.usage.output } }));
  out.push(ev('message_stop'));
  return out;
}
