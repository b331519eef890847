// Owns the adapter from any Vercel AI SDK language model to the LanguageModelPort: one streamText call per step.
import { stepCountIs, streamText, type LanguageModel, type TextStreamPart, type ToolSet } from 'ai';
import type { FinishReason, LanguageModelPort, StepChunk, StepInput } from './model.js';
import { ModelError } from './model-error.js';
import { toAiSdkPrompt } from './ai-sdk-prompt.js';
import { toModelError } from './provider-error.js';
import type { ToolNameMap } from './tool-names.js';

export interface AiSdkModelOptions {
  /** The Setup's model string. */
  id: string;
  /** Provider label for errors (`openai`, `anthropic`, `openai-compatible:ollama`). */
  provider: string;
  model: LanguageModel;
  maxRetries: number;
  /** Scrubbed from any upstream error text. */
  secrets: readonly (string | undefined)[];
  providerOptions?: ProviderOptions;
}

/** Per-provider request options (e.g. `{ openai: { store: false } }`); the type `ai` does not export by name. */
export type ProviderOptions = NonNullable<Parameters<typeof streamText>[0]['providerOptions']>;

type ToolCallPart = Extract<TextStreamPart<ToolSet>, { type: 'tool-call' }>;

const FINISH_REASONS: ReadonlySet<string> = new Set(['stop', 'tool-calls', 'length', 'content-filter']);

function toToolCall(part: ToolCallPart, names: ToolNameMap): StepChunk {
  const wire = names.toWire(part.toolName);
  const input: unknown = part.input;
  const isObject = typeof input === 'object' && input !== null && !Array.isArray(input);
  const invalid = part.invalid
    ? `The model's call could not be used: ${part.error instanceof Error ? part.error.message : 'invalid tool call'}`.slice(0, 500)
    : wire === undefined
      ? `The model called "${part.toolName}", which is not an available tool.`
      : !isObject
        ? 'The model passed arguments that are not a JSON object.'
        : undefined;
  return {
    type: 'tool-call',
    toolCallId: part.toolCallId,
    toolName: wire ?? part.toolName,
    args: isObject ? (input as Record<string, unknown>) : {},
    ...(invalid === undefined ? {} : { invalid }),
  };
}

export function createAiSdkModel(options: AiSdkModelOptions): LanguageModelPort {
  const { provider, secrets } = options;
  return {
    id: options.id,
    async *step(input: StepInput, signal: AbortSignal): AsyncGenerator<StepChunk> {
      if (signal.aborted) throw toModelError(signal.reason, provider, secrets, signal);
      const prompt = toAiSdkPrompt(input);
      const result = streamText({
        model: options.model,
        system: prompt.system,
        messages: prompt.messages,
        tools: prompt.tools,
        // One model call per step: the engine owns the loop (approvals, budgets, audit between calls).
        stopWhen: stepCountIs(1),
        maxRetries: options.maxRetries,
        maxOutputTokens: input.maxOutputTokens,
        abortSignal: signal,
        providerOptions: options.providerOptions,
        // The default handler console.errors the failure; it is surfaced below as a ModelError instead.
        onError: () => {},
      });

      let finish: StepChunk | undefined;
      try {
        for await (const part of result.fullStream) {
          if (part.type === 'text-delta') {
            if (part.text) yield { type: 'text-delta', text: part.text };
          } else if (part.type === 'tool-call') {
            yield toToolCall(part, prompt.names);
          } else if (part.type === 'finish') {
            const reason = FINISH_REASONS.has(part.finishReason) ? (part.finishReason as FinishReason) : 'other';
            const usage = { inputTokens: part.totalUsage.inputTokens ?? 0, outputTokens: part.totalUsage.outputTokens ?? 0 };
            finish = { type: 'finish', usage, reason };
          } else if (part.type === 'error') {
            throw part.error;
          } else if (part.type === 'abort') {
            throw new ModelError('ABORTED', `The ${provider} model step was aborted.`, { provider });
          }
        }
      } catch (error) {
        throw toModelError(error, provider, secrets, signal);
      }
      if (!finish) {
        throw new ModelError('PROVIDER_RESPONSE_INVALID', `${provider} ended the stream without finishing the step.`, { provider });
      }
      yield finish;
    },
  };
}
