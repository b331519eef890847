// Fire idempotency claims: the persisted state of each idempotency-claim actor, kept on the run it answered (trigger_runs).
/*
 * A claim is written with its run, in the run's INSERT (trigger-runs.repo.ts `insertRun` with `claim`): one row
 * per keyed fire. The unique index trigger_runs_claim (org_id, claim_key WHERE claim_key IS NOT NULL) keeps one
 * live claim per key and organization; an expired claim gives its key up by clearing the claim columns, and the
 * run stays in Run history.
 */
import type { SqliteDatabase } from '../database.js';
import { ConstraintViolationError } from '../port/errors.js';
import { mapOptional } from '../row-mapping.js';
import type { FireClaim } from '../records/fire-claims.js';
import { CLAIM_COLUMNS, CLEAR_CLAIM, claimFromRow } from '../rows/fire-claims.js';

export type { NewClaim } from '../records/fire-claims.js';


export function createFireClaimsRepo(db: SqliteDatabase) {
  const s = {
    get: db.prepare(`SELECT ${CLAIM_COLUMNS} FROM trigger_runs WHERE org_id = ? AND claim_key = ?`),
    release: db.prepare(`UPDATE trigger_runs SET ${CLEAR_CLAIM} WHERE org_id = ? AND claim_key = ?`),
    count: db.prepare('SELECT COUNT(*) FROM trigger_runs WHERE claim_key IS NOT NULL').pluck(),
    // Both on trigger_runs_claim_expiry: O(log n) however many claims are stored (test/storage/query-plans.test.ts).
    earliestExpiry: db.prepare('SELECT MIN(claim_expires_at) FROM trigger_runs WHERE claim_key IS NOT NULL').pluck(),
    sweep: db.prepare(
      `UPDATE trigger_runs SET ${CLEAR_CLAIM} WHERE rowid IN
         (SELECT rowid FROM trigger_runs INDEXED BY trigger_runs_claim_expiry WHERE claim_key IS NOT NULL AND claim_expires_at <= ? ORDER BY claim_expires_at LIMIT ?)`,
    ),
  };
  return {
    get: (scope: string, key: string): FireClaim | undefined => mapOptional(s.get.get(scope, key), claimFromRow),
    /** Gives an expired claim's key up (its run stays); false when there was none. */
    delete: (scope: string, key: string): boolean => s.release.run(scope, key).changes > 0,
    count: () => s.count.get() as number,
    /** The soonest expiry of any stored claim; null when there is none. */
    earliestExpiry: () => s.earliestExpiry.get() as number | null,
    /** Clears up to `limit` claims expired at `now`, oldest first; returns how many went. */
    sweepExpired: (now: number, limit: number): number => s.sweep.run(now, limit).changes,
  };
}

export type FireClaimsRepo = ReturnType<typeof createFireClaimsRepo>;
