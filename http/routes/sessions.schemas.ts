// Request and response schemas of the agent conversation routes (SPEC "Personal-key Agent conversations", "Limits").
import { z } from 'zod';
import { callerCredentialsSchema } from '../../runtime/vault/index.js';

/** SPEC Limits: agent message trimmed, 1-8,000 characters. */
export const MESSAGE_MAX_LENGTH = 8_000;
/** SPEC Limits: approval comment at most 2,000 characters. */
export const COMMENT_MAX_LENGTH = 2_000;

// Strict bodies (docs/decisions.md "Conversation bodies are strict"): an unknown field is a 400, not silently dropped.
export const MessageBody = z.strictObject({
  message: z.string().trim().min(1).max(MESSAGE_MAX_LENGTH),
  callerCredentials: callerCredentialsSchema.optional(),
});

/** Open takes a visibility too (issue 13 item 4): `personal` chats are the opener's alone (SPEC conversations rules 3, 5). */
export const OpenBody = z.strictObject({
  ...MessageBody.shape,
  visibility: z.enum(['domain', 'personal']).optional().describe('`domain` (default): the domain\'s members see it; `personal`: only you.'),
});

export const ApprovalBody = z
  .strictObject({
    decision: z.enum(['approved', 'rejected']),
    approvalId: z.uuid().optional(),
    comment: z.string().max(COMMENT_MAX_LENGTH).optional(),
    callerCredentials: callerCredentialsSchema.optional(),
    editedArgs: z.record(z.string(), z.unknown()).optional(),
  })
  // SPEC Errors: `editedArgs` with a rejection is 400 VALIDATION.
  .refine((body) => body.decision === 'approved' || body.editedArgs === undefined, {
    path: ['editedArgs'],
    message: 'editedArgs is only allowed with decision "approved"',
  });

/** A run approval has no tool arguments to edit and no caller credentials to replace: decision, comment, approvalId. */
export const RunDecisionBody = z.strictObject({
  decision: z.enum(['approved', 'rejected']),
  approvalId: z.uuid().optional(),
  comment: z.string().max(COMMENT_MAX_LENGTH).optional(),
});

export const OpenResponse = z.object({ sessionId: z.uuid(), executionId: z.uuid() });
export const AppendResponse = z.object({ executionId: z.uuid() });
export const ApprovalResponse = z.object({ ok: z.literal(true), approvalId: z.uuid(), decision: z.enum(['approved', 'rejected']) });
