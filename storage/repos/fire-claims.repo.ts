// Fire idempotency claims (table idempotency_claims): the persisted state of each idempotency-claim actor.
import type { SqliteDatabase } from '../database.js';

export interface FireClaimRow {
  /** The key owner's organization: the same key in another organization is another claim. */
  scope: string;
  key: string;
  /** Keyed HMAC of the request (never the request itself: it may carry caller credentials). */
  fingerprint: Buffer;
  state: 'in_progress' | 'completed';
  status_code: number | null;
  /** JSON of the original response body (ids only). */
  response: string | null;
  run_id: string | null;
  /** The request that holds (or held) the claim. */
  owner: string;
  lease_until: number;
  created_at: number;
  expires_at: number;
}

export function createFireClaimsRepo(db: SqliteDatabase) {
  const s = {
    get: db.prepare('SELECT * FROM idempotency_claims WHERE scope = ? AND key = ?'),
    upsert: db.prepare(
      `INSERT INTO idempotency_claims (scope, key, fingerprint, state, status_code, response, run_id, owner, lease_until, created_at, expires_at)
       VALUES (@scope, @key, @fingerprint, @state, @status_code, @response, @run_id, @owner, @lease_until, @created_at, @expires_at)
       ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = excluded.state,
         status_code = excluded.status_code, response = excluded.response, run_id = excluded.run_id, owner = excluded.owner,
         lease_until = excluded.lease_until, created_at = excluded.created_at, expires_at = excluded.expires_at`,
    ),
    delete: db.prepare('DELETE FROM idempotency_claims WHERE scope = ? AND key = ?'),
    count: db.prepare('SELECT COUNT(*) FROM idempotency_claims').pluck(),
    // Both on idempotency_claims_expiry: O(log n) however many claims are stored (test/storage/query-plans.test.ts).
    earliestExpiry: db.prepare('SELECT MIN(expires_at) FROM idempotency_claims').pluck(),
    sweep: db.prepare(
      `DELETE FROM idempotency_claims WHERE rowid IN
         (SELECT rowid FROM idempotency_claims INDEXED BY idempotency_claims_expiry WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
    ),
  };
  return {
    get: (scope: string, key: string) => s.get.get(scope, key) as FireClaimRow | undefined,
    upsert: (row: FireClaimRow): void => void s.upsert.run(row),
    /** Sweeps an expired claim; false when there was none. */
    delete: (scope: string, key: string): boolean => s.delete.run(scope, key).changes > 0,
    count: () => s.count.get() as number,
    /** The soonest expiry of any stored claim; null when there is none. */
    earliestExpiry: () => s.earliestExpiry.get() as number | null,
    /** Deletes up to `limit` claims expired at `now`, oldest first; returns how many went. */
    sweepExpired: (now: number, limit: number): number => s.sweep.run(now, limit).changes,
  };
}

export type FireClaimsRepo = ReturnType<typeof createFireClaimsRepo>;
