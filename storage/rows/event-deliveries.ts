// The event_deliveries row and its record: one mapping for both drivers.
import type { EventDelivery, EventDeliveryStatus } from '../records/event-deliveries.js';

export interface EventDeliveryRow {
  trigger_id: string;
  message_id: string;
  org_id: string;
  status: EventDeliveryStatus;
  reason: string | null;
  run_id: string | null;
  received_at: number;
}

export const eventDeliveryFromRow = (r: EventDeliveryRow): EventDelivery => ({
  triggerId: r.trigger_id,
  messageId: r.message_id,
  orgId: r.org_id,
  status: r.status,
  reason: r.reason,
  runId: r.run_id,
  receivedAt: r.received_at,
});

export const eventDeliveryToRow = (d: EventDelivery): EventDeliveryRow => ({
  trigger_id: d.triggerId,
  message_id: d.messageId,
  org_id: d.orgId,
  status: d.status,
  reason: d.reason,
  run_id: d.runId,
  received_at: d.receivedAt,
});
