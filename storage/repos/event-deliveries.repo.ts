// Inbound event deliveries of event triggers: the webhook-id dedupe record and the fired / skipped log.
import type { SqliteDatabase } from '../database.js';
import type { EventDelivery, EventDeliveryStatus } from '../records/event-deliveries.js';
import { mapOptional } from '../row-mapping.js';

export type { EventDeliveryStatus } from '../records/event-deliveries.js';

interface EventDeliveryRow {
  trigger_id: string;
  message_id: string;
  org_id: string;
  status: EventDeliveryStatus;
  reason: string | null;
  run_id: string | null;
  received_at: number;
}

const fromRow = (r: EventDeliveryRow): EventDelivery => ({
  triggerId: r.trigger_id,
  messageId: r.message_id,
  orgId: r.org_id,
  status: r.status,
  reason: r.reason,
  runId: r.run_id,
  receivedAt: r.received_at,
});

const toRow = (d: EventDelivery): EventDeliveryRow => ({
  trigger_id: d.triggerId,
  message_id: d.messageId,
  org_id: d.orgId,
  status: d.status,
  reason: d.reason,
  run_id: d.runId,
  received_at: d.receivedAt,
});

export function createEventDeliveriesRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO event_deliveries (trigger_id, message_id, org_id, status, reason, run_id, received_at)
       VALUES (@trigger_id, @message_id, @org_id, @status, @reason, @run_id, @received_at)`,
    ),
    get: db.prepare('SELECT * FROM event_deliveries WHERE trigger_id = ? AND message_id = ?'),
    recent: db.prepare('SELECT * FROM event_deliveries WHERE trigger_id = ? ORDER BY received_at DESC, message_id DESC LIMIT ?'),
  };
  return {
    /** Throws a UNIQUE constraint error when the message was already recorded for this trigger. */
    insert: (delivery: EventDelivery): void => void s.insert.run(toRow(delivery)),
    delivery: (triggerId: string, messageId: string) => mapOptional(s.get.get(triggerId, messageId), fromRow),
    recent: (triggerId: string, limit: number) => (s.recent.all(triggerId, limit) as EventDeliveryRow[]).map(fromRow),
  };
}

export type EventDeliveriesRepo = ReturnType<typeof createEventDeliveriesRepo>;
