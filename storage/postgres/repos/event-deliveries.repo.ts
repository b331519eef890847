// Inbound event deliveries on PostgreSQL (storage/repos/event-deliveries.repo.ts's functions, async).
import type { EventDelivery } from '../../records/event-deliveries.js';
import { insert, many, one, type Queryable } from './sql.js';
import { eventDeliveryFromRow as fromRow, eventDeliveryToRow as toRow } from '../../rows/event-deliveries.js';

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
