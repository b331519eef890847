// Read-only counts for the metrics scrape; each one is answered from a partial index, not a table scan.
import type { SqliteDatabase } from '../database.js';

export function createGaugesRepo(db: SqliteDatabase) {
  const s = {
    // webhook_deliveries_due (next_attempt_at) WHERE status = 'pending' covers this count.
    pendingDeliveries: db.prepare(`SELECT COUNT(*) FROM webhook_deliveries INDEXED BY webhook_deliveries_due WHERE status = 'pending'`).pluck(),
    // timers_due (due_at) WHERE fired_at IS NULL: only the rows already due are visited.
    dueTimers: db.prepare('SELECT kind, COUNT(*) AS count FROM timers INDEXED BY timers_due WHERE fired_at IS NULL AND due_at <= ? GROUP BY kind'),
    // executions_unsettled (status) WHERE status IN (queued, running, resume_queued) covers this count.
    unsettledExecutions: db.prepare(`SELECT status, COUNT(*) AS count FROM executions WHERE status IN ('queued', 'running', 'resume_queued') GROUP BY status`),
  };
  return {
    /** Outbound webhook deliveries still to be attempted (the backlog). */
    pendingDeliveries: () => s.pendingDeliveries.get() as number,
    /** Unfired timers whose due time has passed, by kind: work the scheduler has not caught up with. */
    dueTimers: (now: number) => s.dueTimers.all(now) as Array<{ kind: string; count: number }>,
    /** Executions waiting (queued, resume_queued) or running: the turn queue. */
    unsettledExecutions: () => s.unsettledExecutions.all() as Array<{ status: string; count: number }>,
  };
}

export type GaugesRepo = ReturnType<typeof createGaugesRepo>;
