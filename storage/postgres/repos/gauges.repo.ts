// Metrics-scrape counts on PostgreSQL (storage/repos/gauges.repo.ts's functions, async), each from a partial index.
import { many, scalar, type Queryable } from './sql.js';

export function createPostgresGaugesRepo(q: Queryable) {
  return {
    /** Outbound webhook deliveries still to be attempted (the backlog); webhook_deliveries_due's predicate. */
    pendingDeliveries: async (): Promise<number> => (await scalar<number>(q, `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`, []))!,
    /** Unfired timers whose due time has passed, by kind; timers_due's predicate. Sorted so every scrape lists them alike. */
    dueTimers: (now: number) =>
      many(
        q,
        'SELECT kind, count(*) AS count FROM timers WHERE fired_at IS NULL AND due_at <= $1 GROUP BY kind ORDER BY kind COLLATE "C"',
        [now],
        (r: { kind: string; count: number }) => ({ kind: r.kind, count: r.count }),
      ),
    /** Executions waiting (queued, resume_queued) or running: the turn queue; executions_unsettled's predicate. */
    unsettledExecutions: () =>
      many(
        q,
        `SELECT status, count(*) AS count FROM executions WHERE status IN ('queued', 'running', 'resume_queued') GROUP BY status ORDER BY status`,
        [],
        (r: { status: string; count: number }) => ({ status: r.status, count: r.count }),
      ),
  };
}
