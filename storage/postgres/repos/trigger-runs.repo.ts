// Run history on PostgreSQL (storage/repos/trigger-runs.repo.ts's functions, async): one trigger_runs row per firing.
import type { CreatedCursor } from '../../records/paging.js';
import type { NewTriggerRun } from '../../records/trigger-runs.js';
import { postgresCodec } from '../../row-codec.js';
import { resultViewFromRow, triggerRunRows } from '../../rows/trigger-runs.js';
import { insert, keysetClause, keysetValues, many, one, run, scalar, type Queryable } from './sql.js';

const { fromRow, toRow, pendingFromRow } = triggerRunRows(postgresCodec);

export function createPostgresTriggerRunsRepo(q: Queryable) {
  return {
    /**
     * A keyed run carries its claim: a second live claim of the key in the organization meets the unique index
     * trigger_runs_claim on any node and throws ConstraintViolationError, which isClaimConflict recognizes.
     */
    insertRun: (r: NewTriggerRun): Promise<void> => insert(q, 'trigger_runs', toRow(r)),
    run: (id: string) => one(q, 'SELECT * FROM trigger_runs WHERE id = $1', [id], fromRow),
    /** Newest first (served by trigger_runs_trigger); `before` continues after the last run of the previous page. */
    page: (triggerId: string, before: CreatedCursor | null, limit: number) =>
      many(q, `SELECT * FROM trigger_runs WHERE trigger_id = $1 AND ${keysetClause(2, 'desc')}`, [triggerId, ...keysetValues(before, limit)], fromRow),
    /**
     * Results of several runs in one query, each run's in firing order (the stored array's order). `->>` answers
     * text on PostgreSQL, so the position is cast back to the integer SQLite's `->>` gives.
     */
    resultsOf: (runIds: readonly string[]) =>
      many(
        q,
        `SELECT t.id AS run_id, j.value ->> 'automationId' AS automation_id, (j.value ->> 'position')::integer AS position,
                j.value ->> 'status' AS status, j.value ->> 'code' AS code, j.value ->> 'reason' AS reason,
                j.value ->> 'sessionId' AS session_id, a.name AS automation_name, a.kind AS automation_kind
         FROM trigger_runs t CROSS JOIN LATERAL jsonb_array_elements(t.results) WITH ORDINALITY AS j(value, ordinal)
         LEFT JOIN automations a ON a.id = j.value ->> 'automationId'
         WHERE t.id = ANY($1::text[]) ORDER BY t.id COLLATE "C", j.ordinal`,
        [runIds],
        resultViewFromRow,
      ),
    countOfTrigger: async (triggerId: string): Promise<number> =>
      (await scalar<number>(q, 'SELECT count(*) FROM trigger_runs WHERE trigger_id = $1', [triggerId]))!,
    /**
     * Runs whose session starts the execution side has not written yet, oldest first (boot recovery), on the partial
     * index trigger_runs_pending. Ties by id: SQLite's follow insertion (rowid), which PostgreSQL has no notion of.
     */
    pendingRuns: () =>
      many(q, 'SELECT id, pending FROM trigger_runs WHERE pending IS NOT NULL ORDER BY created_at, id COLLATE "C"', [], pendingFromRow),
    /** Marks the run's session starts written; false when they already were. */
    clearPending: async (id: string): Promise<boolean> =>
      (await run(q, 'UPDATE trigger_runs SET pending = NULL WHERE id = $1 AND pending IS NOT NULL', [id])) > 0,
  };
}
