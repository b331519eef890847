// Response schemas of the session read and its event stream (docs/events.md), held equal to the runtime's types.
import { z } from 'zod';
import type { Same } from '../openapi/same-type.js';
import { SESSION_EVENT_VERSION, type SessionEvent, type SessionEventEnvelope } from '../../runtime/events/session-event.js';
import type { SessionView } from '../../runtime/sessions/session-view.js';

/** How a session ended, as a manager recorded it (PATCH /agents/sessions/:id). */
export const SessionOutcomeSchema = z.enum(['resolved', 'unresolved', 'escalated']);
/** Why canParticipate is false (docs/decisions.md "Session lifecycle"). */
export const ReadOnlyReasonSchema = z.enum(['flow_session', 'not_a_participant', 'session_archived', 'agent_unpublished']);

const TurnStatus = z.enum(['queued', 'running', 'suspended', 'resume_queued', 'completed', 'failed', 'rejected']);

const PendingApproval = z
  .object({
    approvalId: z.uuid(),
    executionId: z.uuid(),
    toolCallId: z.string().nullable(),
    toolName: z.string(),
    args: z.record(z.string(), z.unknown()),
    requestedAt: z.iso.datetime(),
  })
  .meta({ id: 'PendingApproval' });

export const SessionViewSchema = z
  .object({
    sessionId: z.uuid(),
    automationId: z.uuid(),
    domainId: z.uuid(),
    visibility: z.enum(['personal', 'domain']),
    status: z.string(),
    origin: z.string(),
    title: z.string().nullable(),
    outcome: SessionOutcomeSchema.nullable(),
    archivedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    canParticipate: z.boolean(),
    canManage: z.boolean(),
    readOnlyReason: ReadOnlyReasonSchema.nullable(),
    latestTurn: z.object({ executionId: z.uuid(), status: TurnStatus, errorCode: z.string().nullable() }).nullable(),
    messages: z.array(
      z.object({
        messageId: z.uuid(),
        executionId: z.string().nullable(),
        role: z.enum(['user', 'assistant']),
        text: z.string(),
        createdAt: z.iso.datetime(),
        author: z.object({ userId: z.uuid(), name: z.string().nullable(), isYou: z.boolean() }).optional(),
      }),
    ),
    toolCalls: z.array(
      z.object({
        toolCallId: z.string(),
        executionId: z.string(),
        toolName: z.string(),
        args: z.unknown(),
        edited: z.boolean(),
        status: z.string(),
        identity: z.enum(['caller', 'organization']).nullable(),
        errorCode: z.string().nullable(),
      }),
    ),
    files: z.array(z.object({ fileId: z.uuid(), executionId: z.string().nullable(), name: z.string(), mediaType: z.string(), sizeBytes: z.number().int() })),
    pendingApproval: PendingApproval.nullable(),
    pendingApprovalId: z.uuid().nullable(),
  })
  .meta({ id: 'SessionView' });

const executionId = z.uuid();

export const SessionEventSchema = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('snapshot'),
      latestSeq: z.number().int(),
      turn: z.object({ executionId, status: TurnStatus }).nullable(),
      pendingApproval: PendingApproval.nullable(),
      pendingApprovalId: z.uuid().nullable(),
    }),
    z.object({ type: z.literal('turn.started'), executionId, resumed: z.boolean() }),
    z.object({ type: z.literal('message.delta'), executionId, messageId: z.string(), text: z.string() }),
    z.object({ type: z.literal('tool_call.started'), executionId, toolCallId: z.string(), toolName: z.string(), step: z.number().int(), edited: z.boolean() }),
    z.object({
      type: z.literal('tool_call.finished'),
      executionId,
      toolCallId: z.string(),
      toolName: z.string(),
      status: z.enum(['succeeded', 'failed', 'rejected']),
      errorCode: z.string().nullable(),
      identity: z.enum(['caller', 'organization']).nullable(),
      durationMs: z.number(),
    }),
    z.object({
      type: z.literal('caller_credential.failed'),
      executionId,
      toolCallId: z.string().nullable(),
      integrationId: z.string(),
      code: z.enum(['CALLER_CREDENTIALS_REQUIRED', 'CALLER_CREDENTIAL_EXPIRED']),
    }),
    z.object({ type: z.literal('budget.failed'), executionId, budget: z.enum(['steps', 'tokens', 'wall_time']), limit: z.number(), used: z.number() }),
    z.object({ type: z.literal('file.added'), executionId: z.string().nullable(), fileId: z.uuid(), name: z.string(), mediaType: z.string(), sizeBytes: z.number().int() }),
    z.object({ type: z.literal('turn.suspended'), executionId, approvalId: z.uuid(), toolName: z.string(), toolCallId: z.string().nullable() }),
    z.object({ type: z.literal('turn.completed'), executionId, outcome: z.enum(['completed', 'failed', 'rejected', 'cancelled']), errorCode: z.string().nullable() }),
    z.object({ type: z.literal('session.changed'), change: z.enum(['message_added', 'renamed', 'archived', 'unarchived', 'outcome_set', 'deleted', 'access_changed']) }),
    z.object({
      type: z.literal('stream.reset'),
      reason: z.enum(['last_event_id_ahead', 'events_pruned', 'last_event_id_invalid']),
      requestedSeq: z.number().int().nullable(),
      latestSeq: z.number().int(),
    }),
  ])
  .meta({ id: 'SessionEvent' });

/** One SSE `data:` line of the session stream; the frame's `id:` is `seq`. */
export const SessionEventEnvelopeSchema = z
  .object({
    v: z.literal(SESSION_EVENT_VERSION),
    sessionId: z.uuid(),
    seq: z.number().int().min(0),
    ts: z.iso.datetime(),
    event: SessionEventSchema,
  })
  .meta({ id: 'SessionEventEnvelope' });

// The schemas above document what the runtime sends: tsc fails here when either side changes alone.
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const viewMatches: Same<z.output<typeof SessionViewSchema>, SessionView> = true;
const eventMatches: Same<z.output<typeof SessionEventSchema>, SessionEvent> = true;
const envelopeMatches: Same<z.output<typeof SessionEventEnvelopeSchema>, Mutable<SessionEventEnvelope>> = true;
void [viewMatches, eventMatches, envelopeMatches];
