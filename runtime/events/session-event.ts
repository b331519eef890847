// The agent session stream's versioned envelope and its closed union of event types (docs/events.md).
import { toIso } from '../clock.js';
import type { StoredSessionEvent } from '../../storage/records/session-events.js';

/** Envelope version (spec "Versioning" 3 leaves the field name open: it is `v`). Bump on a breaking payload change. */
export const SESSION_EVENT_VERSION = 1;

/** Every event type the stream may carry (spec "Events -> Agent session stream"); no others are sent. */
export const SESSION_EVENT_TYPES = [
  'snapshot',
  'turn.started',
  'message.delta',
  'tool_call.started',
  'tool_call.finished',
  'caller_credential.failed',
  'budget.failed',
  'file.added',
  'turn.suspended',
  'turn.completed',
  'session.changed',
  'stream.reset',
] as const;

export type SessionEventType = (typeof SESSION_EVENT_TYPES)[number];

/** Types that exist only on one connection, never stored: they carry the stream position, not a seq of their own. */
export const SYNTHETIC_EVENT_TYPES = ['snapshot', 'stream.reset'] as const satisfies readonly SessionEventType[];

export type TurnStatus = 'queued' | 'running' | 'suspended' | 'resume_queued' | 'completed' | 'failed' | 'rejected';
export type TurnOutcome = 'completed' | 'failed' | 'rejected' | 'cancelled';

/** The approval a suspended turn waits for. Args are the model-proposed tool arguments an approver reviews. */
export interface PendingApprovalView {
  approvalId: string;
  executionId: string;
  toolCallId: string | null;
  toolName: string;
  args: Record<string, unknown>;
  /** ISO-8601. */
  requestedAt: string;
}

/** What the stream route supplies for the opening snapshot (authoritative state read at connect time). */
export interface SnapshotPayload {
  /** The session's latest turn, or null when it has none. */
  turn: { executionId: string; status: TurnStatus } | null;
  pendingApproval: PendingApprovalView | null;
  /** Same id as `pendingApproval.approvalId` (the spec names both fields). */
  pendingApprovalId: string | null;
}

export type StreamResetReason =
  /** Last-Event-ID names a seq this session never reached (another deployment, a restored database). */
  | 'last_event_id_ahead'
  /** The events after Last-Event-ID were pruned; they cannot be replayed. */
  | 'events_pruned'
  /** Last-Event-ID is not a non-negative integer. */
  | 'last_event_id_invalid';

export type SessionEvent =
  | ({ type: 'snapshot'; latestSeq: number } & SnapshotPayload)
  | { type: 'turn.started'; executionId: string; resumed: boolean }
  | { type: 'message.delta'; executionId: string; messageId: string; text: string }
  | { type: 'tool_call.started'; executionId: string; toolCallId: string; toolName: string; step: number; edited: boolean }
  | {
      type: 'tool_call.finished';
      executionId: string;
      toolCallId: string;
      toolName: string;
      status: 'succeeded' | 'failed' | 'rejected';
      /** A code (e.g. CALLER_CREDENTIAL_EXPIRED), never an upstream message: those can quote secrets. */
      errorCode: string | null;
      /** Whose authority the call ran with; which credential is never said. */
      identity: 'caller' | 'organization' | null;
      durationMs: number;
    }
  | {
      type: 'caller_credential.failed';
      executionId: string;
      toolCallId: string | null;
      integrationId: string;
      code: 'CALLER_CREDENTIALS_REQUIRED' | 'CALLER_CREDENTIAL_EXPIRED';
    }
  | { type: 'budget.failed'; executionId: string; budget: 'steps' | 'tokens' | 'wall_time'; limit: number; used: number }
  | { type: 'file.added'; executionId: string | null; fileId: string; name: string; mediaType: string; sizeBytes: number }
  | { type: 'turn.suspended'; executionId: string; approvalId: string; toolName: string; toolCallId: string | null }
  | { type: 'turn.completed'; executionId: string; outcome: TurnOutcome; errorCode: string | null }
  | { type: 'session.changed'; change: 'message_added' | 'renamed' | 'archived' | 'unarchived' | 'outcome_set' | 'deleted' | 'access_changed' }
  | { type: 'stream.reset'; reason: StreamResetReason; requestedSeq: number | null; latestSeq: number };

export type SessionEventOf<T extends SessionEventType> = Extract<SessionEvent, { type: T }>;

/** Events that are stored with a seq; the bus refuses the synthetic ones. */
export type PersistedSessionEvent = Exclude<SessionEvent, { type: (typeof SYNTHETIC_EVENT_TYPES)[number] }>;
export type PersistedEventType = PersistedSessionEvent['type'];

export type MessageDelta = Omit<SessionEventOf<'message.delta'>, 'type'>;

/** What one SSE `data:` line carries. */
export interface SessionEventEnvelope<E extends SessionEvent = SessionEvent> {
  readonly v: typeof SESSION_EVENT_VERSION;
  readonly sessionId: string;
  /** Per-session, dense, starting at 1. Synthetic events carry the stream position (the last seq they reflect). */
  readonly seq: number;
  /** ISO-8601 time the event was recorded. */
  readonly ts: string;
  readonly event: Readonly<E>;
}

const PERSISTED = new Set<string>(SESSION_EVENT_TYPES.filter((type) => !(SYNTHETIC_EVENT_TYPES as readonly string[]).includes(type)));

export function isPersistedType(type: string): type is PersistedEventType {
  return PERSISTED.has(type);
}

/** Envelopes are shared by every subscriber of a session: frozen so one listener cannot alter another's copy. */
export function envelope<E extends SessionEvent>(sessionId: string, seq: number, tsMs: number, event: E): SessionEventEnvelope<E> {
  return Object.freeze({ v: SESSION_EVENT_VERSION, sessionId, seq, ts: toIso(tsMs), event: Object.freeze(event) });
}

/** A stored row as its envelope: the payload column holds the event's fields without its type. */
export function rowEnvelope(sessionId: string, row: StoredSessionEvent): SessionEventEnvelope {
  return envelope(sessionId, row.seq, row.ts, { type: row.type, ...JSON.parse(row.payload) } as SessionEvent);
}
