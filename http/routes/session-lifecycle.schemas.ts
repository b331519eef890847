// Schemas of the session list, paged reads and lifecycle routes, held equal to the runtime's types.
import { z } from 'zod';
import type { Same } from '../openapi/same-type.js';
import { SESSIONS_PAGE_DEFAULT, SESSIONS_PAGE_MAX, type SessionSummary } from '../../runtime/sessions/session-list.js';
import type { MessageView, ToolCallView } from '../../runtime/sessions/session-view.js';
import { SessionOutcomeSchema, SessionViewSchema } from './session-view.schemas.js';

/** A session title: trimmed, 1-200 characters (null clears it). */
export const TITLE_MAX_LENGTH = 200;

const limit = z.coerce.number().int().min(1).max(SESSIONS_PAGE_MAX).default(SESSIONS_PAGE_DEFAULT);
const cursor = z.string().min(1).max(200).optional().describe('nextCursor of the previous page (opaque).');

export const SessionsQuery = z.strictObject({
  automationId: z.uuid().optional().describe('Only sessions of this agent or flow.'),
  status: z.enum(['active', 'archived']).optional().describe('Only active or only archived sessions; both when absent.'),
  createdFrom: z.iso.datetime({ offset: true }).optional().describe('Created at or after this instant (ISO-8601).'),
  createdTo: z.iso.datetime({ offset: true }).optional().describe('Created before this instant (ISO-8601, exclusive).'),
  mine: z.enum(['true', 'false']).transform((v) => v === 'true').optional().describe('true: only sessions the caller opened (their personal chats and the domain sessions they started).'),
  limit,
  cursor,
});

export const PageQuery = z.strictObject({ limit, cursor });

export const SessionPatchBody = z
  .strictObject({
    title: z.string().trim().min(1).max(TITLE_MAX_LENGTH).nullable().optional(),
    outcome: SessionOutcomeSchema.nullable().optional(),
  })
  .refine((body) => body.title !== undefined || body.outcome !== undefined, { message: 'send title, outcome, or both' });

/** Archive and unarchive take no fields: an empty body or `{}`. */
export const EmptyBody = z.strictObject({});

export const SessionSummarySchema = z
  .object({
    sessionId: z.uuid(),
    automationId: z.uuid(),
    domainId: z.uuid(),
    visibility: z.enum(['personal', 'domain']),
    origin: z.string(),
    status: z.string(),
    title: z.string().nullable(),
    outcome: SessionOutcomeSchema.nullable(),
    createdBy: z.uuid().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    archivedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'SessionSummary' });

const nextCursor = z.string().nullable().describe('Pass as cursor for the next (older) page; null on the last page.');

export const SessionsPage = z.object({ sessions: z.array(SessionSummarySchema), nextCursor });
export const MessagesPage = z.object({ messages: SessionViewSchema.shape.messages, nextCursor });
export const ToolCallsPage = z.object({ toolCalls: SessionViewSchema.shape.toolCalls, nextCursor });

// The schemas above document what the runtime returns: tsc fails here when either side changes alone.
const summaryMatches: Same<z.output<typeof SessionSummarySchema>, SessionSummary> = true;
const messageMatches: Same<z.output<typeof MessagesPage>['messages'][number], MessageView> = true;
const toolCallMatches: Same<z.output<typeof ToolCallsPage>['toolCalls'][number], ToolCallView> = true;
void [summaryMatches, messageMatches, toolCallMatches];
