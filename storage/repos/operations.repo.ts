// Organization-scoped counts for the console's operations view; each is answered from an index, not a table scan.
import type { SqliteDatabase } from '../database.js';

export function createOperationsRepo(db: SqliteDatabase) {
  const s = {
    // executions_unsettled (status) WHERE status IN (queued, running, resume_queued), then each session by key.
    unsettled: db.prepare(
      `SELECT e.status, COUNT(*) AS count FROM executions e INDEXED BY executions_unsettled JOIN sessions s ON s.id = e.session_id
        WHERE e.status IN ('queued', 'running', 'resume_queued') AND s.org_id = ? GROUP BY e.status`,
    ),
    // approvals_pending (org_id, status) WHERE status = 'pending': a suspended turn or run waits on one of these.
    awaitingApproval: db.prepare(`SELECT COUNT(DISTINCT execution_id) AS executions, COUNT(*) AS approvals FROM approvals WHERE org_id = ? AND status = 'pending'`),
    // triggers_org, then trigger_runs_trigger (trigger_id, created_at DESC) per trigger: one accepted fire = one run.
    firesSince: db.prepare('SELECT COUNT(*) FROM trigger_runs WHERE trigger_id IN (SELECT id FROM triggers WHERE org_id = ?) AND created_at >= ?').pluck(),
    // webhook_endpoints_org, then webhook_deliveries_endpoint (endpoint_id, created_at DESC) per endpoint.
    webhooksSince: db.prepare(
      `SELECT COALESCE(SUM(status = 'failed'), 0) AS failed, COALESCE(SUM(status = 'pending' AND attempts > 0), 0) AS retrying,
              MAX(CASE WHEN status = 'failed' OR (status = 'pending' AND attempts > 0) THEN updated_at END) AS lastFailureAt
         FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE org_id = ?) AND created_at >= ?`,
    ),
  };
  return {
    /** The organization's executions waiting (queued, resume_queued) or running. */
    unsettledExecutions: (orgId: string) => s.unsettled.all(orgId) as Array<{ status: string; count: number }>,
    /** Executions suspended on a pending approval, and the pending approvals themselves. */
    awaitingApproval: (orgId: string) => s.awaitingApproval.get(orgId) as { executions: number; approvals: number },
    /** Accepted fires (Run history records) of the organization's triggers since `since` (ms). */
    firesSince: (orgId: string, since: number) => s.firesSince.get(orgId, since) as number,
    /** Outbound deliveries created since `since`: failed for good, pending after a failed attempt, latest failure time. */
    webhooksSince: (orgId: string, since: number) => s.webhooksSince.get(orgId, since) as { failed: number; retrying: number; lastFailureAt: number | null },
  };
}

export type OperationsRepo = ReturnType<typeof createOperationsRepo>;
