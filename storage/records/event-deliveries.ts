// Domain record for an inbound event delivery: the webhook-id dedupe record and its fired / skipped outcome (storage/repos/event-deliveries.repo.ts).

export type EventDeliveryStatus = 'fired' | 'skipped';

export interface EventDelivery {
  triggerId: string;
  /** The sender's webhook-id header. */
  messageId: string;
  orgId: string;
  status: EventDeliveryStatus;
  /** Why a delivery was skipped (e.g. FILTER_MISS); null when fired. */
  reason: string | null;
  /** The Run history id of a fired delivery. */
  runId: string | null;
  receivedAt: number;
}
