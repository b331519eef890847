// Run history: one trigger_runs row per firing (subscriber results, claim and pending session starts inline), read newest first.
import type { SqliteDatabase } from '../database.js';
import { sqliteCodec } from '../row-codec.js';
import { mapOptional } from '../row-mapping.js';
import type { CreatedCursor } from '../records/paging.js';
import type { NewTriggerRun, PendingRun, SubscriberResultView, TriggerRun } from '../records/trigger-runs.js';
import {
  resultViewFromRow, triggerRunRows, type PendingRunRow, type SubscriberResultViewRow, type TriggerRunRow,
} from '../rows/trigger-runs.js';

export type { RunSource, RunOutcome, SubscriberStatus } from '../records/trigger-runs.js';

const { fromRow: runFromRow, toRow: runToRow, pendingFromRow: pendingRunFromRow } = triggerRunRows(sqliteCodec);

export function createTriggerRunsRepo(db: SqliteDatabase) {
  const s = {
    insertRun: db.prepare(
      `INSERT INTO trigger_runs (id, trigger_id, org_id, source, fired_by, outcome, unused_credential_integrations, idempotency_key, created_at, results,
         pending, claim_key, claim_fingerprint, claim_response, claim_expires_at)
       VALUES (@id, @trigger_id, @org_id, @source, @fired_by, @outcome, @unused_credential_integrations, @idempotency_key, @created_at, @results,
         @pending, @claim_key, @claim_fingerprint, @claim_response, @claim_expires_at)`,
    ),
    // Served by the partial index trigger_runs_pending: O(pending), however long Run history is.
    pendingRuns: db.prepare('SELECT id, pending FROM trigger_runs INDEXED BY trigger_runs_pending WHERE pending IS NOT NULL ORDER BY created_at'),
    clearPending: db.prepare('UPDATE trigger_runs SET pending = NULL WHERE id = ? AND pending IS NOT NULL'),
    run: db.prepare('SELECT * FROM trigger_runs WHERE id = ?'),
    // Served by the index trigger_runs_trigger (trigger_id, created_at DESC, id DESC).
    firstPage: db.prepare('SELECT * FROM trigger_runs WHERE trigger_id = ? ORDER BY created_at DESC, id DESC LIMIT ?'),
    nextPage: db.prepare(
      `SELECT * FROM trigger_runs WHERE trigger_id = @trigger_id AND (created_at < @created_at OR (created_at = @created_at AND id < @id))
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    ),
    // The runs are point reads by primary key; their results unnest from the JSON column in firing order.
    results: db.prepare(
      `SELECT t.id AS run_id, j.value ->> 'automationId' AS automation_id, j.value ->> 'position' AS position,
              j.value ->> 'status' AS status, j.value ->> 'code' AS code, j.value ->> 'reason' AS reason,
              j.value ->> 'sessionId' AS session_id, a.name AS automation_name, a.kind AS automation_kind
       FROM trigger_runs t, json_each(t.results) j
       LEFT JOIN automations a ON a.id = j.value ->> 'automationId'
       WHERE t.id IN (SELECT value FROM json_each(?)) ORDER BY t.id, j.key`,
    ),
    countOfTrigger: db.prepare('SELECT COUNT(*) FROM trigger_runs WHERE trigger_id = ?').pluck(),
  };

  return {
    insertRun: (run: NewTriggerRun): void => void s.insertRun.run(runToRow(run)),
    run: (id: string): TriggerRun | undefined => mapOptional(s.run.get(id), runFromRow),
    /** Newest first; `before` continues after the last run of the previous page. */
    page(triggerId: string, before: CreatedCursor | null, limit: number): TriggerRun[] {
      const rows = before === null
        ? s.firstPage.all(triggerId, limit)
        : s.nextPage.all({ trigger_id: triggerId, created_at: before.createdAt, id: before.id, limit });
      return (rows as TriggerRunRow[]).map(runFromRow);
    },
    /** Results of several runs in one query, each run's in firing order. */
    resultsOf: (runIds: readonly string[]): SubscriberResultView[] =>
      (s.results.all(JSON.stringify(runIds)) as SubscriberResultViewRow[]).map(resultViewFromRow),
    countOfTrigger: (triggerId: string) => s.countOfTrigger.get(triggerId) as number,
    /** Runs whose session starts the execution side has not written yet, oldest first (boot recovery). */
    pendingRuns: (): PendingRun[] => (s.pendingRuns.all() as PendingRunRow[]).map(pendingRunFromRow),
    /** Marks the run's session starts written; false when they already were. */
    clearPending: (id: string): boolean => s.clearPending.run(id).changes > 0,
  };
}

export type TriggerRunsRepo = ReturnType<typeof createTriggerRunsRepo>;
