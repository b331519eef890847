// Outbound webhooks: endpoints, deliveries with their attempt log, and the once-per-run notices that enqueue them.
import type { SqliteDatabase } from '../database.js';
import type {
  OrganizationWithEndpoints, RunSubscriberState, WebhookAttempt, WebhookDelivery, WebhookDeliveryOutcome, WebhookDeliveryStatus, WebhookEndpoint,
} from '../records/webhooks.js';
import type { CreatedCursor } from '../records/paging.js';
import { sqliteCodec } from '../row-codec.js';
import { mapOptional } from '../row-mapping.js';
import {
  attemptFromRow, attemptToRow, deliveryFromRow, deliveryToRow, endpointRows, outcomeToRow, runStateFromRow,
  type RunSubscriberStateRow, type WebhookAttemptRow, type WebhookDeliveryRow, type WebhookEndpointRow,
} from '../rows/webhooks.js';

export type { WebhookDeliveryStatus } from '../records/webhooks.js';

// SQLite reads its 0/1 and JSON text through the codec.
const { endpointFromRow: toEndpoint, endpointToRow } = endpointRows(sqliteCodec);

export function createWebhooksRepo(db: SqliteDatabase) {
  const s = {
    insertEndpoint: db.prepare(
      `INSERT INTO webhook_endpoints (id, org_id, url, secret_sealed, events, active, created_by, created_at)
       VALUES (@id, @org_id, @url, @secret_sealed, @events, @active, @created_by, @created_at)`,
    ),
    endpoint: db.prepare('SELECT * FROM webhook_endpoints WHERE id = ?'),
    endpointsOfOrg: db.prepare('SELECT * FROM webhook_endpoints WHERE org_id = ? ORDER BY created_at, id'),
    activeEndpoints: db.prepare('SELECT * FROM webhook_endpoints WHERE org_id = ? AND active = 1 ORDER BY created_at, id'),
    hasActive: db.prepare('SELECT 1 FROM webhook_endpoints WHERE org_id = ? AND active = 1 LIMIT 1').pluck(),
    orgsWithActive: db.prepare('SELECT org_id, MIN(created_at) AS since FROM webhook_endpoints WHERE active = 1 GROUP BY org_id'),
    deleteEndpoint: db.prepare('DELETE FROM webhook_endpoints WHERE id = ?'),
    insertDelivery: db.prepare(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_type, payload, status, attempts, next_attempt_at, last_status, last_error, created_at, updated_at, run_id)
       VALUES (@id, @endpoint_id, @event_type, @payload, @status, @attempts, @next_attempt_at, @last_status, @last_error, @created_at, @updated_at, @run_id)`,
    ),
    delivery: db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?'),
    pendingOfEndpoint: db.prepare(`SELECT id FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending'`).pluck(),
    recordAttempt: db.prepare(
      `UPDATE webhook_deliveries SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at,
         last_status = @last_status, last_error = @last_error, updated_at = @updated_at WHERE id = @id`,
    ),
    insertAttempt: db.prepare(
      `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
       VALUES (@delivery_id, @attempt, @attempted_at, @status_code, @error, @duration_ms)`,
    ),
    firstPage: db.prepare('SELECT * FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at DESC, id DESC LIMIT ?'),
    nextPage: db.prepare(
      `SELECT * FROM webhook_deliveries WHERE endpoint_id = @endpoint_id AND (created_at < @created_at OR (created_at = @created_at AND id < @id))
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    ),
    attemptsOf: db.prepare(
      `SELECT * FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, attempt`,
    ),
    insertNotice: db.prepare('INSERT OR IGNORE INTO webhook_run_notices (run_id, org_id, settled_at) VALUES (?, ?, ?)'),
    runState: db.prepare(
      `SELECT r.automation_id, r.position, r.status AS start_status, r.code, r.session_id,
              e.status AS execution_status, e.error_code, e.settled_at
       FROM (SELECT j.key AS ord, j.value ->> 'automationId' AS automation_id, j.value ->> 'position' AS position,
                    j.value ->> 'status' AS status, j.value ->> 'code' AS code, j.value ->> 'sessionId' AS session_id
             FROM trigger_runs t, json_each(t.results) j WHERE t.id = ?) r
       LEFT JOIN executions e ON e.session_id = r.session_id
         AND e.position = (SELECT MIN(x.position) FROM executions x WHERE x.session_id = r.session_id)
       ORDER BY r.ord`,
    ),
    unannouncedRuns: db.prepare(
      `SELECT tr.id FROM triggers t JOIN trigger_runs tr ON tr.trigger_id = t.id AND tr.created_at >= @since
       WHERE t.org_id = @org_id AND NOT EXISTS (SELECT 1 FROM webhook_run_notices n WHERE n.run_id = tr.id)
       ORDER BY tr.created_at, tr.id LIMIT @limit`,
    ).pluck(),
  };

  return {
    insertEndpoint: (endpoint: WebhookEndpoint): void => void s.insertEndpoint.run(endpointToRow(endpoint)),
    endpoint: (id: string) => mapOptional(s.endpoint.get(id), toEndpoint),
    endpointsOfOrganization: (orgId: string) => (s.endpointsOfOrg.all(orgId) as WebhookEndpointRow[]).map(toEndpoint),
    activeEndpoints: (orgId: string) => (s.activeEndpoints.all(orgId) as WebhookEndpointRow[]).map(toEndpoint),
    /** Cheap guard on hot paths: most organizations have no endpoint, and then nothing is tracked. */
    hasActiveEndpoints: (orgId: string): boolean => s.hasActive.get(orgId) !== undefined,
    /** Organizations with an active endpoint, and when their oldest one was registered. */
    organizationsWithEndpoints: (): OrganizationWithEndpoints[] =>
      (s.orgsWithActive.all() as Array<{ org_id: string; since: number }>).map((r) => ({ orgId: r.org_id, since: r.since })),
    /** Deletes the endpoint with its deliveries and attempt log (cascade). */
    deleteEndpoint: (id: string): boolean => s.deleteEndpoint.run(id).changes > 0,
    insertDelivery: (delivery: WebhookDelivery): void => void s.insertDelivery.run(deliveryToRow(delivery)),
    delivery: (id: string) => mapOptional(s.delivery.get(id), deliveryFromRow),
    pendingDeliveryIds: (endpointId: string) => s.pendingOfEndpoint.all(endpointId) as string[],
    recordAttempt(delivery: WebhookDeliveryOutcome, attempt: WebhookAttempt): void {
      s.recordAttempt.run(outcomeToRow(delivery));
      s.insertAttempt.run(attemptToRow(attempt));
    },
    /** Newest first; `before` continues after the last row of the previous page. */
    deliveriesPage(endpointId: string, before: CreatedCursor | null, limit: number): WebhookDelivery[] {
      const rows = before === null
        ? s.firstPage.all(endpointId, limit)
        : s.nextPage.all({ endpoint_id: endpointId, created_at: before.createdAt, id: before.id, limit });
      return (rows as WebhookDeliveryRow[]).map(deliveryFromRow);
    },
    attemptsOf: (deliveryIds: readonly string[]) => (s.attemptsOf.all(JSON.stringify(deliveryIds)) as WebhookAttemptRow[]).map(attemptFromRow),
    /** False when the run was already announced. */
    insertRunNotice: (runId: string, orgId: string, now: number): boolean => s.insertNotice.run(runId, orgId, now).changes > 0,
    runState: (runId: string) => (s.runState.all(runId) as RunSubscriberStateRow[]).map(runStateFromRow),
    unannouncedRuns: (orgId: string, since: number, limit: number) => s.unannouncedRuns.all({ org_id: orgId, since, limit }) as string[],
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;
