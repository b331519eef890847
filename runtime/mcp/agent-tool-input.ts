// The arguments every agent tool takes (message, sessionId, callerCredentials) and their JSON Schemas for tools/list.
import { z } from 'zod';
import { callerCredentialsSchema } from '../vault/index.js';

/** SPEC Limits: an agent message is trimmed, 1-8,000 characters (the REST routes' bound). */
export const TOOL_MESSAGE_MAX_LENGTH = 8_000;

// Strict like the REST message bodies: a misspelt argument is refused, not silently dropped.
export const AgentToolArguments = z.strictObject({
  message: z
    .string()
    .trim()
    .min(1)
    .max(TOOL_MESSAGE_MAX_LENGTH)
    .describe('What to ask or tell the agent (1-8,000 characters after trimming).'),
  sessionId: z
    .uuid()
    .optional()
    .describe('Continue this conversation: the sessionId a previous call of this tool returned. Omit to start a new one.'),
  callerCredentials: callerCredentialsSchema
    .optional()
    .describe(
      'Credentials of the end user for the integrations the agent calls, keyed by integration id; held encrypted for this turn only, then deleted.',
    ),
});

export type AgentToolArguments = z.output<typeof AgentToolArguments>;

/** What a client must send: the input side of the schema (defaults are optional), without a `$schema` dialect line. */
export function agentToolInputSchema(): Record<string, unknown> & { type: 'object' } {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(AgentToolArguments, { io: 'input', unrepresentable: 'any' });
  return { ...schema, type: 'object' };
}

/** The statuses a call can report: where the turn was when the call answered. */
export const TOOL_CALL_STATUSES = ['completed', 'failed', 'rejected', 'suspended', 'queued', 'running', 'resume_queued'] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/**
 * structuredContent of every result (protocol 2025-06-18 `outputSchema`). Plain JSON Schema, no `$schema` and no
 * `format`: clients compile it (the TypeScript SDK with Ajv's default draft) to check each result.
 */
export function agentToolOutputSchema(): Record<string, unknown> & { type: 'object' } {
  return {
    type: 'object',
    properties: {
      sessionId: { type: 'string', description: 'The agent session; pass it back as sessionId to continue.' },
      executionId: { type: 'string', description: 'This turn.' },
      status: { type: 'string', enum: [...TOOL_CALL_STATUSES], description: 'Where the turn was when the call answered.' },
      approvalId: { type: 'string', description: 'Present when status is suspended: the approval the turn waits for.' },
      pendingTool: { type: 'string', description: 'Present when status is suspended: the tool call awaiting approval.' },
      errorCode: { type: 'string', description: 'Present when the turn failed.' },
    },
    required: ['sessionId', 'executionId', 'status'],
    additionalProperties: false,
  };
}
