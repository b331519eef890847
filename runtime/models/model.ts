// Owns the model port: the one interface the turn engine drives, whatever provider answers (builtin, OpenAI, Anthropic, compatible).
/**
 * ## How the turn engine uses a model
 *
 * A turn is a loop of model *steps* (DESIGN.md "Runtime" -> Turn engine). One step:
 *
 * ```ts
 * const model = resolveModel(setup.model, config);          // throws ModelError (typed) on a bad string or missing config
 * for await (const chunk of model.step(input, signal)) {    // throws ModelError on provider failure or abort
 *   if (chunk.type === 'text-delta') emit('message.delta', chunk.text);
 *   if (chunk.type === 'tool-call')  pending.push(chunk);   // run (or gate for approval) after the step
 *   if (chunk.type === 'finish')     account(chunk.usage);  // always the last chunk of a successful step
 * }
 * ```
 *
 * then the engine runs the step's tool calls itself (the model never executes a tool), appends to
 * `messages` one `assistant` message (the step's text and tool calls, in that order) and one `tool`
 * message per call, and steps again; a step that returns no tool call ends the turn with its text as the
 * answer. Contract:
 *
 * - `step` is stateless: everything the model knows comes from `input`; the same port serves every turn.
 * - Chunks: any number of `text-delta`s and `tool-call`s, then exactly one `finish`. Tool names are wire ids
 *   (`crm.get_contact`), exactly as given in `input.tools`; providers that forbid dots never leak their
 *   encoded names. `args` is a parsed JSON object.
 * - A `tool-call` with `invalid` set is one the model got wrong (unknown tool, unparsable arguments): do
 *   not run it; answer it with an error tool result so the model can correct itself on the next step.
 * - Failures are thrown as `ModelError` (see model-error.ts) with a `reason` and `retryable` flag, never as a
 *   raw SDK or network error; the message names the provider and never carries an API key. An aborted
 *   `signal` ends the step with `ModelError('ABORTED')`.
 * - `builtin:procedure` issues at most one tool call per step, so approval gates fall between calls;
 *   provider models may issue several (parallel tool calls): gate them one by one in order.
 */

/** One tool the model may call this step. `inputSchema` is a JSON Schema object (`type: 'object'`). */
export interface ToolSpec {
  /** Wire id, `integration.tool` (e.g. `crm.get_contact`); also `knowledge.search`. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A knowledge article excerpt chosen for this turn (from the agent's knowledge selection). */
export interface KnowledgeSnippet {
  title: string;
  body: string;
}

/** What the agent's Setup contributes to every step, rendered into the system prompt. */
export interface SystemContext {
  principles: string;
  procedure: string;
  knowledge: readonly KnowledgeSnippet[];
}

/** A tool call as the model issued it. */
export interface ToolCallRequest {
  toolCallId: string;
  /** Wire id. */
  toolName: string;
  args: Record<string, unknown>;
}

/** The outcome of running a tool call: its JSON output, or an error with the spec-style code. */
export type ToolResult =
  | { ok: true; output: unknown }
  | { ok: false; error: { code: string; message: string } };

export type ConversationMessage =
  | { role: 'user'; text: string }
  /** One model step: its text (may be empty) and the tool calls it issued. */
  | { role: 'assistant'; text: string; toolCalls: readonly ToolCallRequest[] }
  /** The result of one earlier tool call, matched by `toolCallId`. */
  | { role: 'tool'; toolCallId: string; toolName: string; result: ToolResult };

export interface StepInput {
  system: SystemContext;
  /** Oldest first; the first is normally the user's message that opened the session. */
  messages: readonly ConversationMessage[];
  /** The tools available to this agent for this step (already narrowed by bindings/approval policy). */
  tools: readonly ToolSpec[];
  /** Cap on output tokens for this step (the engine derives it from the remaining token budget). */
  maxOutputTokens?: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

export type StepChunk =
  | { type: 'text-delta'; text: string }
  | ({ type: 'tool-call'; invalid?: string } & ToolCallRequest)
  | { type: 'finish'; usage: TokenUsage; reason: FinishReason };

export interface LanguageModelPort {
  /** The Setup's model string this port was resolved from, e.g. `builtin:procedure`, `openai:gpt-4.1`. */
  readonly id: string;
  step(input: StepInput, signal: AbortSignal): AsyncIterable<StepChunk>;
}
