// Rebuilds what the model sees from stored message rows, and finds the current turn's tool calls still unanswered.
/*
 * The message log is the turn's durable state: a fresh start, a resume after approval and a restart after a
 * crash all continue from it. Earlier turns contribute their user messages and answers only (their tool calls
 * were answered inside those turns); the current turn contributes every step and tool result.
 */
import type { ConversationEntry } from '../../storage/records/sessions.js';
import type { ConversationMessage, ToolCallRequest, ToolResult } from '../models/index.js';

/** An assistant row's payload: the calls its step issued (`invalid` ones are answered with an error, never run). */
export interface AssistantPayload {
  toolCalls: Array<ToolCallRequest & { invalid?: string }>;
}

/** A tool row's payload: the model-facing result of one call. */
export interface ToolPayload {
  toolCallId: string;
  toolName: string;
  result: ToolResult;
}

export interface TurnConversation {
  messages: ConversationMessage[];
  /** Calls of the current turn's latest step with no result yet, in the order the model issued them. */
  pending: AssistantPayload['toolCalls'];
  /** Text of the current turn's user message (the procedure model reads arguments from it). */
  userText: string;
}

export function assistantPayload(row: ConversationEntry): AssistantPayload {
  return row.payload === null ? { toolCalls: [] } : (JSON.parse(row.payload) as AssistantPayload);
}

export function rebuildConversation(rows: readonly ConversationEntry[], execution: { id: string; position: number }): TurnConversation {
  const earlier = rows
    .filter((row) => row.executionPosition !== null && row.executionPosition < execution.position)
    .sort((a, b) => a.executionPosition! - b.executionPosition! || a.position - b.position);
  const messages: ConversationMessage[] = [];
  for (const row of earlier) {
    if (row.role === 'user') messages.push({ role: 'user', text: row.content });
    else if (row.role === 'assistant' && row.content !== '') messages.push({ role: 'assistant', text: row.content, toolCalls: [] });
  }
  let pending: AssistantPayload['toolCalls'] = [];
  let userText = '';
  for (const row of rows) {
    if (row.executionId !== execution.id) continue;
    if (row.role === 'user') {
      userText = row.content;
      messages.push({ role: 'user', text: row.content });
    } else if (row.role === 'assistant') {
      const { toolCalls } = assistantPayload(row);
      messages.push({ role: 'assistant', text: row.content, toolCalls: toolCalls.map(({ toolCallId, toolName, args }) => ({ toolCallId, toolName, args })) });
      pending = [...toolCalls];
    } else if (row.role === 'tool' && row.payload !== null) {
      const payload = JSON.parse(row.payload) as ToolPayload;
      messages.push({ role: 'tool', toolCallId: payload.toolCallId, toolName: payload.toolName, result: payload.result });
      pending = pending.filter((call) => call.toolCallId !== payload.toolCallId);
    }
  }
  return { messages, pending, userText };
}
