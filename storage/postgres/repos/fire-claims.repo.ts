// Fire idempotency claims on PostgreSQL (storage/repos/fire-claims.repo.ts's functions, async), kept on their run's row.
/*
 * Claims are written by the run insert (trigger-runs.repo.ts). Exactly once across nodes: the unique partial index
 * trigger_runs_claim (org_id, claim_key) is the arbiter; a racing insert waits for the holder's transaction and then
 * fails as a unique violation named trigger_runs_claim (isClaimConflict in storage/repos/fire-claims.repo.ts).
 */
import type { FireClaim } from '../../records/fire-claims.js';
import { CLAIM_COLUMNS, CLEAR_CLAIM, claimFromRow } from '../../rows/fire-claims.js';
import { one, run, scalar, type Queryable } from './sql.js';

export function createPostgresFireClaimsRepo(q: Queryable) {
  return {
    /** claim_response is text: the stored 202 comes back byte for byte. */
    get: (scope: string, key: string): Promise<FireClaim | undefined> =>
      one(q, `SELECT ${CLAIM_COLUMNS} FROM trigger_runs WHERE org_id = $1 AND claim_key = $2`, [scope, key], claimFromRow),
    /** Gives an expired claim's key up (its run stays); false when there was none. */
    delete: async (scope: string, key: string): Promise<boolean> =>
      (await run(q, `UPDATE trigger_runs SET ${CLEAR_CLAIM} WHERE org_id = $1 AND claim_key = $2`, [scope, key])) > 0,
    count: async (): Promise<number> => (await scalar<number>(q, 'SELECT count(*) FROM trigger_runs WHERE claim_key IS NOT NULL', []))!,
    /** The soonest expiry of any stored claim; null when there is none (on trigger_runs_claim_expiry). */
    earliestExpiry: async (): Promise<number | null> =>
      (await scalar<number | null>(q, 'SELECT MIN(claim_expires_at) FROM trigger_runs WHERE claim_key IS NOT NULL', [])) ?? null,
    /**
     * Clears up to `limit` claims expired at `now`, oldest first; returns how many went. Sweepers on several nodes
     * take disjoint rows (SKIP LOCKED), and the outer guard re-checked on a row another sweeper or a `delete` cleared
     * meanwhile leaves it alone, so each cleared claim is counted once.
     */
    sweepExpired: async (now: number, limit: number): Promise<number> =>
      run(
        q,
        `UPDATE trigger_runs SET ${CLEAR_CLAIM} WHERE claim_key IS NOT NULL AND claim_expires_at <= $1 AND id IN
           (SELECT id FROM trigger_runs WHERE claim_key IS NOT NULL AND claim_expires_at <= $1 ORDER BY claim_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [now, limit],
      ),
  };
}
