// Run history: one trigger_runs row per firing (subscriber results, claim and pending session starts inline), read newest first.
import type { SqliteDatabase } from '../database.js';
import { jsonColumn, mapOptional } from '../row-mapping.js';
import type {
  NewTriggerRun, PendingRun, RunCursor, RunOutcome, RunSource, SubscriberResult, SubscriberResultView, SubscriberStatus, TriggerRun,
} from '../records/trigger-runs.js';

export type { RunSource, RunOutcome, SubscriberStatus, RunCursor } from '../records/trigger-runs.js';

interface TriggerRunRow {
  id: string;
  trigger_id: string;
  org_id: string;
  source: RunSource;
  fired_by: string | null;
  outcome: RunOutcome;
  /** JSON array of integration ids. */
  unused_credential_integrations: string;
  idempotency_key: string | null;
  created_at: number;
}

/** The insert's parameters: the run, its results, pending starts and claim columns (JSON as text). */
interface NewTriggerRunRow extends TriggerRunRow {
  results: string;
  pending: string | null;
  claim_key: string | null;
  claim_fingerprint: Buffer | null;
  claim_response: string | null;
  claim_expires_at: number | null;
}

interface PendingRunRow {
  id: string;
  pending: string;
}

/** One result unnested from trigger_runs.results, with its automation's name and kind. */
interface SubscriberResultViewRow {
  run_id: string;
  automation_id: string;
  position: number;
  status: SubscriberStatus;
  code: string | null;
  reason: string | null;
  session_id: string | null;
  automation_name: string | null;
  automation_kind: string | null;
}

const stringArray = (text: string): string[] => {
  const parsed = jsonColumn(text);
  return Array.isArray(parsed) ? (parsed as string[]) : [];
};

const runFromRow = (r: TriggerRunRow): TriggerRun => ({
  id: r.id,
  triggerId: r.trigger_id,
  orgId: r.org_id,
  source: r.source,
  firedBy: r.fired_by,
  outcome: r.outcome,
  unusedCredentialIntegrations: stringArray(r.unused_credential_integrations),
  idempotencyKey: r.idempotency_key,
  createdAt: r.created_at,
});

// The results column keeps this key order (the reader unnests it by name).
const resultToJson = (r: SubscriberResult) => ({
  automationId: r.automationId, position: r.position, status: r.status, code: r.code, reason: r.reason, sessionId: r.sessionId,
});

const runToRow = ({ results, claim, pending, ...run }: NewTriggerRun): NewTriggerRunRow => ({
  id: run.id,
  trigger_id: run.triggerId,
  org_id: run.orgId,
  source: run.source,
  fired_by: run.firedBy,
  outcome: run.outcome,
  unused_credential_integrations: JSON.stringify(run.unusedCredentialIntegrations),
  idempotency_key: run.idempotencyKey,
  created_at: run.createdAt,
  results: JSON.stringify(results.map(resultToJson)),
  pending: pending == null ? null : JSON.stringify(pending),
  claim_key: claim?.key ?? null,
  claim_fingerprint: claim?.fingerprint ?? null,
  claim_response: claim?.response ?? null,
  claim_expires_at: claim?.expiresAt ?? null,
});

const pendingRunFromRow = (r: PendingRunRow): PendingRun => {
  const parsed = jsonColumn(r.pending);
  return { id: r.id, pending: Array.isArray(parsed) ? parsed : [] };
};

const resultViewFromRow = (r: SubscriberResultViewRow): SubscriberResultView => ({
  runId: r.run_id,
  automationId: r.automation_id,
  position: r.position,
  status: r.status,
  code: r.code,
  reason: r.reason,
  sessionId: r.session_id,
  automationName: r.automation_name,
  automationKind: r.automation_kind,
});

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
    page(triggerId: string, before: RunCursor | null, limit: number): TriggerRun[] {
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
