// Inbound event deliveries of event triggers: the webhook-id dedupe record and the fired / skipped log.
import type { SqliteDatabase } from '../database.js';
import type { EventDelivery, EventDeliveryStatus } from '../records/event-deliveries.js';
import { mapOptional } from '../row-mapping.js';
import { eventDeliveryFromRow as fromRow, eventDeliveryToRow as toRow, type EventDeliveryRow } from '../rows/event-deliveries.js';

export type { EventDeliveryStatus } from '../records/event-deliveries.js';

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
