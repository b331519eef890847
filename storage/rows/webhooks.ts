// Row shapes of webhook endpoints, deliveries, attempts and a run's subscriber states, mapped once for both drivers.
// Row shapes are `type` aliases, not interfaces, so they fit sql.ts's `insert(q, table, row: Record<string, unknown>)`.
import type { RunSubscriberState, WebhookAttempt, WebhookDelivery, WebhookDeliveryOutcome, WebhookDeliveryStatus, WebhookEndpoint } from '../records/webhooks.js';
import type { RowCodec } from '../row-codec.js';

export type WebhookEndpointRow = {
  id: string;
  org_id: string;
  url: string;
  /** Sealed signing secret (BLOB / bytea): never the secret in clear. */
  secret_sealed: Buffer;
  /** Event types the endpoint receives: a JSON array (text on SQLite, jsonb on PostgreSQL). */
  events: unknown;
  active: number | boolean;
  created_by: string | null;
  created_at: number;
};

/** payload is text on both engines: every attempt sends (and signs) the same bytes. */
export type WebhookDeliveryRow = {
  id: string;
  endpoint_id: string;
  event_type: string;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  run_id: string | null;
};

export type WebhookAttemptRow = {
  delivery_id: string;
  attempt: number;
  attempted_at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
};

export type RunSubscriberStateRow = {
  automation_id: string;
  position: number;
  start_status: 'started' | 'skipped' | 'failed';
  code: string | null;
  session_id: string | null;
  execution_status: string | null;
  error_code: string | null;
  settled_at: number | null;
};

/** The endpoint mappings for one driver's codec (storage/row-codec.ts). */
export const endpointRows = (codec: RowCodec) => ({
  endpointFromRow: (r: WebhookEndpointRow): WebhookEndpoint => ({
    id: r.id,
    orgId: r.org_id,
    url: r.url,
    secretSealed: r.secret_sealed,
    events: codec.jsonArray<string>(r.events),
    active: codec.bool(r.active),
    createdBy: r.created_by,
    createdAt: r.created_at,
  }),
  endpointToRow: (e: WebhookEndpoint): WebhookEndpointRow => ({
    id: e.id,
    org_id: e.orgId,
    url: e.url,
    secret_sealed: e.secretSealed,
    events: codec.toJson(e.events),
    active: codec.toBool(e.active),
    created_by: e.createdBy,
    created_at: e.createdAt,
  }),
});

export const deliveryFromRow = (r: WebhookDeliveryRow): WebhookDelivery => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventType: r.event_type,
  payload: r.payload,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lastStatus: r.last_status,
  lastError: r.last_error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  runId: r.run_id,
});

export const deliveryToRow = (d: WebhookDelivery): WebhookDeliveryRow => ({
  id: d.id,
  endpoint_id: d.endpointId,
  event_type: d.eventType,
  payload: d.payload,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.nextAttemptAt,
  last_status: d.lastStatus,
  last_error: d.lastError,
  created_at: d.createdAt,
  updated_at: d.updatedAt,
  run_id: d.runId,
});

/** The columns one attempt changes on its delivery. */
export const outcomeToRow = (
  o: WebhookDeliveryOutcome,
): Pick<WebhookDeliveryRow, 'id' | 'status' | 'attempts' | 'next_attempt_at' | 'last_status' | 'last_error' | 'updated_at'> => ({
  id: o.id,
  status: o.status,
  attempts: o.attempts,
  next_attempt_at: o.nextAttemptAt,
  last_status: o.lastStatus,
  last_error: o.lastError,
  updated_at: o.updatedAt,
});

export const attemptFromRow = (r: WebhookAttemptRow): WebhookAttempt => ({
  deliveryId: r.delivery_id,
  attempt: r.attempt,
  attemptedAt: r.attempted_at,
  statusCode: r.status_code,
  error: r.error,
  durationMs: r.duration_ms,
});

export const attemptToRow = (a: WebhookAttempt): WebhookAttemptRow => ({
  delivery_id: a.deliveryId,
  attempt: a.attempt,
  attempted_at: a.attemptedAt,
  status_code: a.statusCode,
  error: a.error,
  duration_ms: a.durationMs,
});

export const runStateFromRow = (r: RunSubscriberStateRow): RunSubscriberState => ({
  automationId: r.automation_id,
  position: r.position,
  startStatus: r.start_status,
  code: r.code,
  sessionId: r.session_id,
  executionStatus: r.execution_status,
  errorCode: r.error_code,
  settledAt: r.settled_at,
});
