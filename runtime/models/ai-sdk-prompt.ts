// Owns the translation of a StepInput into the Vercel AI SDK's system prompt, ModelMessages and execute-less tool set.
import { jsonSchema, tool, type JSONSchema7, type JSONValue, type ModelMessage, type ToolSet } from 'ai';
import type { ConversationMessage, StepInput, ToolResult } from './model.js';
import { renderSystemPrompt } from './system-prompt.js';
import { createToolNameMap, type ToolNameMap } from './tool-names.js';

export interface AiSdkPrompt {
  system: string | undefined;
  messages: ModelMessage[];
  tools: ToolSet;
  names: ToolNameMap;
}

export function toAiSdkPrompt(input: StepInput): AiSdkPrompt {
  const names = createToolNameMap(input.tools.map((spec) => spec.name));
  const tools: ToolSet = {};
  for (const spec of input.tools) {
    // No `execute`: streamText then stops at the tool call and the turn engine runs it (approvals, identity, audit).
    tools[names.toProvider(spec.name)] = tool({
      description: `[${spec.name}] ${spec.description}`.trim(),
      inputSchema: jsonSchema<Record<string, unknown>>(spec.inputSchema as JSONSchema7),
    });
  }
  const system = renderSystemPrompt(input.system);
  return { system: system || undefined, messages: toModelMessages(input.messages, names), tools, names };
}

function toModelMessages(messages: readonly ConversationMessage[], names: ToolNameMap): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      out.push({ role: 'user', content: message.text });
    } else if (message.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: [
          ...(message.text ? [{ type: 'text' as const, text: message.text }] : []),
          ...message.toolCalls.map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.toolCallId,
            toolName: names.toProvider(call.toolName),
            input: call.args,
          })),
        ],
      });
    } else {
      const part = {
        type: 'tool-result' as const,
        toolCallId: message.toolCallId,
        toolName: names.toProvider(message.toolName),
        output: toToolOutput(message.result),
      };
      // Consecutive results share one tool message: providers expect all results of a step together.
      const last = out.at(-1);
      if (last?.role === 'tool') last.content.push(part);
      else out.push({ role: 'tool', content: [part] });
    }
  }
  return out;
}

function toToolOutput(result: ToolResult) {
  return result.ok
    ? { type: 'json' as const, value: toJsonValue(result.output) }
    : { type: 'error-json' as const, value: { code: result.error.code, message: result.error.message } };
}

/** Tool outputs arrive as parsed JSON already; this drops what JSON cannot carry (undefined, functions). */
function toJsonValue(value: unknown): JSONValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JSONValue);
}
