// Fire idempotency claims: the persisted state of each idempotency-claim actor, kept on the run it answered (trigger_runs).
/*
 * A claim is written with its run, in the run's INSERT (trigger-runs.repo.ts `insertRun` with `claim`): one row
 * per keyed fire. The unique index trigger_runs_claim (org_id, claim_key WHERE claim_key IS NOT NULL) keeps one
 * live claim per key and organization; an expired claim gives its key up by clearing the claim columns, and the
 * run stays in Run history.
 */
import type { SqliteDatabase } from '../database.js';

export interface FireClaimRow {
  /** The key owner's organization: the same key in another organization is another claim. */
  scope: string;
  key: string;
  /** Keyed HMAC of the request (never the request itself: it may carry caller credentials). */
  fingerprint: Buffer;
  /** Only completed claims are stored: "in progress" lives in memory while the original commits. */
  state: 'completed';
  status_code: number;
  /** JSON of the original response body (ids only). */
  response: string;
  run_id: string;
  /** When the claim completed (its run was accepted). */
  lease_until: number;
  created_at: number;
  expires_at: number;
}

/** The claim columns a keyed run row is inserted with. */
export interface NewClaim {
  key: string;
  fingerprint: Buffer;
  response: string;
  expiresAt: number;
}

/** True when `error` is the run insert meeting trigger_runs_claim: another run already holds the key. */
export function isClaimConflict(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes('trigger_runs.claim_key');
}

const CLEAR = 'claim_key = NULL, claim_fingerprint = NULL, claim_response = NULL, claim_expires_at = NULL';

export function createFireClaimsRepo(db: SqliteDatabase) {
  const s = {
    get: db.prepare(
      `SELECT org_id AS scope, claim_key AS key, claim_fingerprint AS fingerprint, 'completed' AS state, 202 AS status_code,
              claim_response AS response, id AS run_id, created_at AS lease_until, created_at, claim_expires_at AS expires_at
       FROM trigger_runs WHERE org_id = ? AND claim_key = ?`,
    ),
    release: db.prepare(`UPDATE trigger_runs SET ${CLEAR} WHERE org_id = ? AND claim_key = ?`),
    count: db.prepare('SELECT COUNT(*) FROM trigger_runs WHERE claim_key IS NOT NULL').pluck(),
    // Both on trigger_runs_claim_expiry: O(log n) however many claims are stored (test/storage/query-plans.test.ts).
    earliestExpiry: db.prepare('SELECT MIN(claim_expires_at) FROM trigger_runs WHERE claim_key IS NOT NULL').pluck(),
    sweep: db.prepare(
      `UPDATE trigger_runs SET ${CLEAR} WHERE rowid IN
         (SELECT rowid FROM trigger_runs INDEXED BY trigger_runs_claim_expiry WHERE claim_key IS NOT NULL AND claim_expires_at <= ? ORDER BY claim_expires_at LIMIT ?)`,
    ),
  };
  return {
    get: (scope: string, key: string) => s.get.get(scope, key) as FireClaimRow | undefined,
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
