// Run history: one trigger_runs row per firing (subscriber results, claim and pending session starts inline), read newest first.
import type { SqliteDatabase } from '../database.js';
import type { NewClaim } from './fire-claims.repo.js';

export type RunSource = 'api' | 'schedule' | 'event';
export type RunOutcome = 'accepted' | 'succeeded' | 'partial' | 'failed' | 'skipped';
export type SubscriberStatus = 'started' | 'skipped' | 'failed';

export interface TriggerRunRow {
  id: string;
  trigger_id: string;
  org_id: string;
  source: RunSource;
  /** The key owner who fired (null for schedule and event firings). */
  fired_by: string | null;
  outcome: RunOutcome;
  /** JSON array of integration ids supplied with caller credentials that no subscriber used (never material). */
  unused_credential_integrations: string;
  idempotency_key: string | null;
  created_at: number;
}

/**
 * A run as written: its subscriber results travel with it (stored as JSON in trigger_runs.results), and so do the
 * fire's idempotency claim and the session starts the execution side has yet to write (JSON, null when none).
 */
export type NewTriggerRun = TriggerRunRow & {
  results: readonly Omit<SubscriberResultRow, 'run_id'>[];
  claim?: NewClaim | null;
  pending?: string | null;
};

/** A run whose session starts are not yet written (runtime/execution/materializer.ts). */
export interface PendingRunRow {
  id: string;
  pending: string;
}

export interface SubscriberResultRow {
  run_id: string;
  automation_id: string;
  position: number;
  status: SubscriberStatus;
  code: string | null;
  reason: string | null;
  session_id: string | null;
}

/** A result with what the reader shows beside it (null when the automation was deleted since). */
export type SubscriberResultView = SubscriberResultRow & { automation_name: string | null; automation_kind: string | null };

/** Keyset position: runs strictly older than this (created_at, id) pair. */
export interface RunCursor {
  createdAt: number;
  id: string;
}

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
    insertRun: ({ results, claim, pending, ...row }: NewTriggerRun): void =>
      void s.insertRun.run({
        ...row,
        pending: pending ?? null,
        claim_key: claim?.key ?? null,
        claim_fingerprint: claim?.fingerprint ?? null,
        claim_response: claim?.response ?? null,
        claim_expires_at: claim?.expiresAt ?? null,
        results: JSON.stringify(
          results.map((r) => ({ automationId: r.automation_id, position: r.position, status: r.status, code: r.code, reason: r.reason, sessionId: r.session_id })),
        ),
      }),
    run: (id: string) => s.run.get(id) as TriggerRunRow | undefined,
    /** Newest first; `before` continues after the last row of the previous page. */
    page(triggerId: string, before: RunCursor | null, limit: number): TriggerRunRow[] {
      if (before === null) return s.firstPage.all(triggerId, limit) as TriggerRunRow[];
      return s.nextPage.all({ trigger_id: triggerId, created_at: before.createdAt, id: before.id, limit }) as TriggerRunRow[];
    },
    /** Results of several runs in one query, each run's in firing order. */
    resultsOf: (runIds: readonly string[]) => s.results.all(JSON.stringify(runIds)) as SubscriberResultView[],
    countOfTrigger: (triggerId: string) => s.countOfTrigger.get(triggerId) as number,
    /** Runs whose session starts the execution side has not written yet, oldest first (boot recovery). */
    pendingRuns: () => s.pendingRuns.all() as PendingRunRow[],
    /** Marks the run's session starts written; false when they already were. */
    clearPending: (id: string): boolean => s.clearPending.run(id).changes > 0,
  };
}

export type TriggerRunsRepo = ReturnType<typeof createTriggerRunsRepo>;
