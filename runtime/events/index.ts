// Re-exports of the session event plumbing, by name.
export { createSessionEventBus } from './event-bus.js';
export type { EventUnit, SessionEventBus, SessionEventBusOptions, SessionEventBusStats, SessionEventListener, SessionSubscription } from './event-bus.js';
export { createSessionFanout } from './session-fanout.js';
export type { FanoutStats, SessionFanout, SessionFanoutOptions } from './session-fanout.js';
export { createSessionFeed } from './session-feed.js';
export type { SessionFeed, SessionFeedOptions, SessionFeedStats } from './session-feed.js';
export { DeltaCoalescer, realTimers } from './delta-coalescer.js';
export type { DeltaTimers } from './delta-coalescer.js';
export { REDACTED, redactCredentialMaterial } from './redact-payload.js';
export { SESSION_EVENT_TYPES, SESSION_EVENT_VERSION, SYNTHETIC_EVENT_TYPES, envelope, isPersistedType } from './session-event.js';
export type {
  MessageDelta,
  PendingApprovalView,
  PersistedEventType,
  PersistedSessionEvent,
  SessionEvent,
  SessionEventEnvelope,
  SessionEventOf,
  SessionEventType,
  SnapshotPayload,
  StreamResetReason,
  TurnOutcome,
  TurnStatus,
} from './session-event.js';
