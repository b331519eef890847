// Owns `builtin:procedure`, the offline deterministic default model: call the procedure's #tools in order, then summarize.
import type { ConversationMessage, LanguageModelPort, StepChunk, StepInput, ToolCallRequest, ToolResult } from './model.js';
import { ModelError } from './model-error.js';
import { BUILTIN_PROCEDURE_MODEL } from './model-string.js';
import { extractToolArgs } from './procedure-args.js';
import { procedureToolReferences } from './procedure-refs.js';
import { summarizeOutcomes, type CallOutcome } from './procedure-summary.js';

export const KNOWLEDGE_SEARCH_TOOL = 'knowledge.search';

const QUOTE_LIMIT = 500;
const DELTA_SIZE = 48;
/** Usage is estimated (about four characters a token) so token budgets bite offline too. */
const CHARS_PER_TOKEN = 4;

type Plan = { call: ToolCallRequest; text?: undefined } | { call?: undefined; text: string };

/**
 * The step is a pure function of its input: the current turn is everything after the latest user
 * message, so a tool the procedure references is due when no assistant message of this turn called it.
 * One call per step keeps approval gates between calls (DESIGN.md "Turn engine").
 */
export function planProcedureStep(input: StepInput): Plan {
  const userIndex = input.messages.findLastIndex((message) => message.role === 'user');
  const userText = userIndex >= 0 ? (input.messages[userIndex] as { text: string }).text : '';
  const turn = input.messages.slice(userIndex + 1);
  const references = procedureToolReferences(input.system.procedure);

  if (references.length === 0) {
    const quoted = userText.length > QUOTE_LIMIT ? `${userText.slice(0, QUOTE_LIMIT - 1)}…` : userText;
    return { text: userText.trim() ? `Acknowledged: "${quoted.trim()}"` : 'Acknowledged.' };
  }

  const available = new Map(input.tools.map((spec) => [spec.name, spec]));
  const calledThisTurn = new Set(turn.flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((c) => c.toolName) : [])));
  const next = references.find((wireId) => available.has(wireId) && !calledThisTurn.has(wireId));
  if (next !== undefined) {
    const args = extractToolArgs(userText, available.get(next)!.inputSchema);
    if (next === KNOWLEDGE_SEARCH_TOOL && !(typeof args.query === 'string' && args.query.trim())) args.query = userText.trim();
    return { call: { toolCallId: `proc-${countToolCalls(input.messages) + 1}`, toolName: next, args } };
  }

  return { text: summarizeOutcomes(outcomesOf(turn), references.filter((wireId) => !available.has(wireId))) };
}

function countToolCalls(messages: readonly ConversationMessage[]): number {
  return messages.reduce((n, message) => n + (message.role === 'assistant' ? message.toolCalls.length : 0), 0);
}

function outcomesOf(turn: readonly ConversationMessage[]): CallOutcome[] {
  const results = new Map<string, ToolResult>();
  for (const message of turn) if (message.role === 'tool') results.set(message.toolCallId, message.result);
  return turn.flatMap((message) =>
    message.role === 'assistant' ? message.toolCalls.map((call) => ({ call, result: results.get(call.toolCallId) })) : [],
  );
}

/** Whitespace-aligned pieces of about DELTA_SIZE characters; their concatenation is the text. */
function textDeltas(text: string): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const token of text.split(/(?<=\s)/)) {
    if (current && current.length + token.length > DELTA_SIZE) {
      pieces.push(current);
      current = '';
    }
    current += token;
  }
  if (current) pieces.push(current);
  return pieces;
}

const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

/**
 * The serialized length of a turn's tool specs, once per specs array: a turn passes the same array to each of its
 * steps (runtime/turns/turn-tools.ts builds it once per run), and its schemas are most of a step's input.
 */
const toolsChars = new WeakMap<StepInput['tools'], number>();

function inputChars(input: StepInput): number {
  const system = input.system.principles.length + input.system.procedure.length +
    input.system.knowledge.reduce((n, s) => n + s.title.length + s.body.length, 0);
  let tools = toolsChars.get(input.tools);
  if (tools === undefined) toolsChars.set(input.tools, (tools = JSON.stringify(input.tools).length));
  return system + JSON.stringify(input.messages).length + tools;
}

export function createBuiltinProcedureModel(): LanguageModelPort {
  return {
    id: BUILTIN_PROCEDURE_MODEL,
    async *step(input: StepInput, signal: AbortSignal): AsyncGenerator<StepChunk> {
      const check = () => {
        if (signal.aborted) throw new ModelError('ABORTED', 'The builtin model step was aborted.', { provider: 'builtin' });
      };
      check();
      const plan = planProcedureStep(input);
      const inputTokens = tokens(inputChars(input));
      if (plan.call) {
        yield { type: 'tool-call', ...plan.call };
        check();
        yield { type: 'finish', usage: { inputTokens, outputTokens: tokens(JSON.stringify(plan.call).length) }, reason: 'tool-calls' };
        return;
      }
      for (const text of textDeltas(plan.text)) {
        yield { type: 'text-delta', text };
        check();
      }
      yield { type: 'finish', usage: { inputTokens, outputTokens: tokens(plan.text.length) }, reason: 'stop' };
    },
  };
}
