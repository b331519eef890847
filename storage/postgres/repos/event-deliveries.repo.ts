// Inbound event deliveries on PostgreSQL (storage/repos/event-deliveries.repo.ts's functions, async).
import type { EventDelivery, EventDeliveryStatus } from '../../records/event-deliveries.js';
import { insert, many, one, type Queryable } from './sql.js';

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

const toRow = (d: EventDelivery) => ({
  trigger_id: d.triggerId,
  message_id: d.messageId,
  org_id: d.orgId,
  status: d.status,
  reason: d.reason,
  run_id: d.runId,
  received_at: d.receivedAt,
});

export function createPostgresEventDeliveriesRepo(q: Queryable) {
  return {
    /** Throws ConstraintViolationError (isUniqueViolation) when the message was already recorded for this trigger. */
    insert: (delivery: EventDelivery): Promise<void> => insert(q, 'event_deliveries', toRow(delivery)),
    delivery: (triggerId: string, messageId: string) =>
      one(q, 'SELECT * FROM event_deliveries WHERE trigger_id = $1 AND message_id = $2', [triggerId, messageId], fromRow),
    recent: (triggerId: string, limit: number) =>
      many(
        q,
        'SELECT * FROM event_deliveries WHERE trigger_id = $1 ORDER BY received_at DESC, message_id COLLATE "C" DESC LIMIT $2',
        [triggerId, limit],
        fromRow,
      ),
  };
}
