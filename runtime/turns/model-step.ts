// One model step: streams its text as message.delta, collects its tool calls, and reports its token usage.
import { newId } from '../ids.js';
import type { ConversationMessage, StepInput } from '../models/index.js';
import type { TurnContext } from './turn-context.js';
import type { TurnDeps } from './turn-deps.js';
import type { RecordedStep } from './turn-recorder.js';
import type { KnowledgeSnippet } from '../models/index.js';

/** Below this many tokens left in the turn's budget, the step's output is capped to what is left. */
const MAX_OUTPUT_CAP = 8_192;

export interface StepRequest {
  messages: readonly ConversationMessage[];
  knowledge: readonly KnowledgeSnippet[];
  /** Tokens left in the turn's budget: the step's output cap. */
  tokensLeft: number;
  signal: AbortSignal;
}

/** Throws ModelError (provider failure, abort) or whatever the port throws; the runner decides what that means. */
export async function runModelStep(deps: TurnDeps, ctx: TurnContext, request: StepRequest): Promise<RecordedStep> {
  const { setup } = ctx.revision;
  const input: StepInput = {
    system: { principles: setup.principles, procedure: setup.procedure, knowledge: request.knowledge },
    messages: request.messages,
    tools: ctx.tools.specs,
    // Only a nearly spent budget caps the step: a large cap would be refused by providers whose models allow less.
    maxOutputTokens: request.tokensLeft < MAX_OUTPUT_CAP ? Math.max(1, request.tokensLeft) : undefined,
  };
  // The stored assistant message takes this id, so a client can join the deltas to the message it later reads.
  const messageId = newId();
  let text = '';
  const toolCalls: RecordedStep['toolCalls'] = [];
  let tokens = 0;
  for await (const chunk of ctx.model.step(input, request.signal)) {
    if (chunk.type === 'text-delta') {
      text += chunk.text;
      deps.bus.pushDelta(ctx.session.id, { executionId: ctx.execution.id, messageId, text: chunk.text });
    } else if (chunk.type === 'tool-call') {
      const { type: _type, ...call } = chunk;
      toolCalls.push(call);
    } else {
      tokens = chunk.usage.inputTokens + chunk.usage.outputTokens;
    }
  }
  return { messageId, text, toolCalls, tokens };
}
