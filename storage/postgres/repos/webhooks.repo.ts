// Outbound webhooks on PostgreSQL: endpoints, deliveries with their attempt log, run notices (storage/repos/webhooks.repo.ts, async).
import type { OrganizationWithEndpoints, WebhookAttempt, WebhookDelivery, WebhookDeliveryOutcome, WebhookEndpoint } from '../../records/webhooks.js';
import type { CreatedCursor } from '../../records/paging.js';
import { postgresCodec } from '../../row-codec.js';
import {
  attemptFromRow, attemptToRow, deliveryFromRow, deliveryToRow, endpointRows, outcomeToRow, runStateFromRow,
} from '../../rows/webhooks.js';
import { CREATION_ORDER, insert, insertUnlessConflict, keysetClause, keysetValues, many, one, run, type Queryable } from './sql.js';

const { endpointFromRow: toEndpoint, endpointToRow } = endpointRows(postgresCodec);

const pluck = (r: { id: string }) => r.id;

export function createPostgresWebhooksRepo(q: Queryable) {
  return {
    insertEndpoint: (endpoint: WebhookEndpoint): Promise<void> => insert(q, 'webhook_endpoints', endpointToRow(endpoint)),
    endpoint: (id: string) => one(q, 'SELECT * FROM webhook_endpoints WHERE id = $1', [id], toEndpoint),
    endpointsOfOrganization: (orgId: string) => many(q, `SELECT * FROM webhook_endpoints WHERE org_id = $1 ${CREATION_ORDER}`, [orgId], toEndpoint),
    activeEndpoints: (orgId: string) => many(q, `SELECT * FROM webhook_endpoints WHERE org_id = $1 AND active ${CREATION_ORDER}`, [orgId], toEndpoint),
    /** Cheap guard on hot paths: most organizations have no endpoint, and then nothing is tracked. */
    hasActiveEndpoints: async (orgId: string): Promise<boolean> =>
      (await one(q, 'SELECT 1 AS found FROM webhook_endpoints WHERE org_id = $1 AND active LIMIT 1', [orgId], () => true)) === true,
    /** Organizations with an active endpoint, and when their oldest one was registered. */
    organizationsWithEndpoints: (): Promise<OrganizationWithEndpoints[]> =>
      many(q, 'SELECT org_id, min(created_at) AS since FROM webhook_endpoints WHERE active GROUP BY org_id', [], (r: { org_id: string; since: number }) => ({
        orgId: r.org_id,
        since: r.since,
      })),
    /** Deletes the endpoint with its deliveries and attempt log (cascade). */
    deleteEndpoint: async (id: string): Promise<boolean> => (await run(q, 'DELETE FROM webhook_endpoints WHERE id = $1', [id])) > 0,
    insertDelivery: (delivery: WebhookDelivery): Promise<void> => insert(q, 'webhook_deliveries', deliveryToRow(delivery)),
    delivery: (id: string) => one(q, 'SELECT * FROM webhook_deliveries WHERE id = $1', [id], deliveryFromRow),
    pendingDeliveryIds: (endpointId: string) =>
      many(q, `SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`, [endpointId], pluck),
    /**
     * The delivery's new state and its attempt row in one statement (a data-modifying CTE), so even on an
     * autocommitting pool the log never shows an attempt its delivery does not count, or the reverse.
     */
    async recordAttempt(delivery: WebhookDeliveryOutcome, attempt: WebhookAttempt): Promise<void> {
      const d = outcomeToRow(delivery);
      const a = attemptToRow(attempt);
      await run(
        q,
        `WITH delivery AS (
           UPDATE webhook_deliveries SET status = $2, attempts = $3, next_attempt_at = $4, last_status = $5, last_error = $6, updated_at = $7
            WHERE id = $1)
         INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms) VALUES ($8, $9, $10, $11, $12, $13)`,
        [d.id, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error, d.updated_at, a.delivery_id, a.attempt, a.attempted_at, a.status_code, a.error, a.duration_ms],
      );
    },
    /** Newest first; `before` continues after the last row of the previous page. */
    deliveriesPage: (endpointId: string, before: CreatedCursor | null, limit: number): Promise<WebhookDelivery[]> =>
      many(q, `SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND ${keysetClause(2, 'desc')}`, [endpointId, ...keysetValues(before, limit)], deliveryFromRow),
    attemptsOf: (deliveryIds: readonly string[]) =>
      many(
        q,
        'SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id COLLATE "C", attempt',
        [deliveryIds],
        attemptFromRow,
      ),
    /** False when the run was already announced: the primary key decides, however many nodes race to announce it. */
    insertRunNotice: (runId: string, orgId: string, now: number): Promise<boolean> =>
      insertUnlessConflict(q, 'webhook_run_notices', { run_id: runId, org_id: orgId, settled_at: now }, '(run_id)'),
    /**
     * Each subscriber in the run's results array order (WITH ORDINALITY: SQLite's json_each key) with its session's
     * first execution. `->>` yields text here, so the position is cast back to the integer SQLite's `->>` returns.
     */
    runState: (runId: string) =>
      many(
        q,
        `SELECT r.automation_id, r.position, r.status AS start_status, r.code, r.session_id,
                e.status AS execution_status, e.error_code, e.settled_at
         FROM (SELECT j.ord, j.value ->> 'automationId' AS automation_id, (j.value ->> 'position')::integer AS position,
                      j.value ->> 'status' AS status, j.value ->> 'code' AS code, j.value ->> 'sessionId' AS session_id
               FROM trigger_runs t, jsonb_array_elements(t.results) WITH ORDINALITY AS j(value, ord) WHERE t.id = $1) r
         LEFT JOIN executions e ON e.session_id = r.session_id
           AND e.position = (SELECT min(x.position) FROM executions x WHERE x.session_id = r.session_id)
         ORDER BY r.ord`,
        [runId],
        runStateFromRow,
      ),
    unannouncedRuns: (orgId: string, since: number, limit: number) =>
      many(
        q,
        `SELECT tr.id FROM triggers t JOIN trigger_runs tr ON tr.trigger_id = t.id AND tr.created_at >= $2
         WHERE t.org_id = $1 AND NOT EXISTS (SELECT 1 FROM webhook_run_notices n WHERE n.run_id = tr.id)
         ORDER BY tr.created_at, tr.id COLLATE "C" LIMIT $3`,
        [orgId, since, limit],
        pluck,
      ),
  };
}
