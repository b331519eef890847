// Inbound event deliveries of event triggers: the webhook-id dedupe record and the fired / skipped log.
import type { SqliteDatabase } from '../database.js';

export type EventDeliveryStatus = 'fired' | 'skipped';

export interface EventDeliveryRow {
  trigger_id: string;
  /** The sender's webhook-id header. */
  message_id: string;
  org_id: string;
  status: EventDeliveryStatus;
  /** Why a delivery was skipped (e.g. FILTER_MISS); null when fired. */
  reason: string | null;
  /** The Run history id of a fired delivery. */
  run_id: string | null;
  received_at: number;
}

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
    insert: (row: EventDeliveryRow): void => void s.insert.run(row),
    delivery: (triggerId: string, messageId: string) => s.get.get(triggerId, messageId) as EventDeliveryRow | undefined,
    recent: (triggerId: string, limit: number) => s.recent.all(triggerId, limit) as EventDeliveryRow[],
  };
}

export type EventDeliveriesRepo = ReturnType<typeof createEventDeliveriesRepo>;
