// Organization-scoped counts for the operations view on PostgreSQL (storage/repos/operations.repo.ts's functions, async).
import { many, one, scalar, type Queryable } from './sql.js';

export function createPostgresOperationsRepo(q: Queryable) {
  return {
    /** The organization's executions waiting (queued, resume_queued) or running. */
    unsettledExecutions: (orgId: string) =>
      many(
        q,
        `SELECT e.status, count(*) AS count FROM executions e JOIN sessions s ON s.id = e.session_id
          WHERE e.status IN ('queued', 'running', 'resume_queued') AND s.org_id = $1 GROUP BY e.status ORDER BY e.status`,
        [orgId],
        (r: { status: string; count: number }) => ({ status: r.status, count: r.count }),
      ),
    /** Executions suspended on a pending approval, and the pending approvals themselves. */
    awaitingApproval: async (orgId: string) =>
      (await one(
        q,
        `SELECT count(DISTINCT execution_id) AS executions, count(*) AS approvals FROM approvals WHERE org_id = $1 AND status = 'pending'`,
        [orgId],
        (r: { executions: number; approvals: number }) => ({ executions: r.executions, approvals: r.approvals }),
      ))!,
    /** Accepted fires (Run history records) of the organization's triggers since `since` (ms). */
    firesSince: async (orgId: string, since: number): Promise<number> =>
      (await scalar<number>(q, 'SELECT count(*) FROM trigger_runs WHERE trigger_id IN (SELECT id FROM triggers WHERE org_id = $1) AND created_at >= $2', [
        orgId, since,
      ]))!,
    /** Outbound deliveries created since `since`: failed for good, pending after a failed attempt, latest failure time. */
    webhooksSince: async (orgId: string, since: number) =>
      (await one(
        q,
        `SELECT count(*) FILTER (WHERE status = 'failed') AS failed,
                count(*) FILTER (WHERE status = 'pending' AND attempts > 0) AS retrying,
                max(updated_at) FILTER (WHERE status = 'failed' OR (status = 'pending' AND attempts > 0)) AS last_failure_at
           FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE org_id = $1) AND created_at >= $2`,
        [orgId, since],
        (r: { failed: number; retrying: number; last_failure_at: number | null }) => ({
          failed: r.failed,
          retrying: r.retrying,
          lastFailureAt: r.last_failure_at,
        }),
      ))!,
  };
}
