// Leases on named resources with fencing tokens: one holder at a time across nodes, and stale holders' writes refused.
import { StaleLeaseError } from '../port/unit-errors.js';
import type { Queryable } from './queryable.js';

// The error lives in the port: the runtime tells a refused stale write apart (runtime/events/event-bus.ts).
export { StaleLeaseError };

export interface Lease {
  resource: string;
  holder: string;
  /** Grows by one each time the resource changes hands; a write carries it and is refused once it is not current. */
  token: number;
  expiresAt: number;
}

interface LeaseRow {
  resource: string;
  holder: string;
  token: number;
  expires_at: number;
}

const toLease = (row: LeaseRow): Lease => ({ resource: row.resource, holder: row.holder, token: row.token, expiresAt: row.expires_at });

/**
 * Times are the caller's clock (the service's injectable clock), in epoch ms. Expiry only decides when a dead
 * holder's resource can be taken over (liveness); correctness comes from the token: whatever the clocks say, a
 * write fenced by an old token is refused. Keep ttl well above the nodes' clock skew.
 */
export function createLeases(db: Queryable) {
  return {
    /**
     * Takes the resource when it is free, expired or already this holder's (then it is a renewal: same token);
     * null while another holder's lease runs. The upsert is one statement: two takers never both win.
     */
    async take(resource: string, holder: string, ttlMs: number, now: number): Promise<Lease | null> {
      const { rows } = await db.query<LeaseRow>(
        `INSERT INTO resource_leases AS l (resource, holder, token, expires_at) VALUES ($1, $2, 1, $3::bigint + $4::bigint)
         ON CONFLICT (resource) DO UPDATE SET
           holder = EXCLUDED.holder,
           token = l.token + CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at > $3 THEN 0 ELSE 1 END,
           expires_at = EXCLUDED.expires_at
         WHERE l.holder IS NULL OR l.expires_at <= $3 OR l.holder = EXCLUDED.holder
         RETURNING resource, holder, token, expires_at`,
        [resource, holder, now, ttlMs],
      );
      return rows[0] ? toLease(rows[0]) : null;
    },

    /**
     * Takes the resource even from a live holder (a cancel on another node stopping the owner's run): a new token,
     * so every later unit of the old holder is refused; waits for its fenced unit in flight (FOR SHARE) to commit.
     * Already this holder's and live: the same lease. `channel` is told the resource at commit, so the old holder
     * need not wait for its next renewal to notice.
     */
    async seize(resource: string, holder: string, ttlMs: number, now: number, channel: string): Promise<Lease> {
      const { rows } = await db.query<LeaseRow>(
        `WITH taken AS (
           INSERT INTO resource_leases AS l (resource, holder, token, expires_at) VALUES ($1, $2, 1, $3::bigint + $4::bigint)
           ON CONFLICT (resource) DO UPDATE SET
             holder = EXCLUDED.holder,
             token = l.token + CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at > $3 THEN 0 ELSE 1 END,
             expires_at = EXCLUDED.expires_at
           RETURNING resource, holder, token, expires_at)
         SELECT taken.*, pg_notify($5, taken.resource) FROM taken`,
        [resource, holder, now, ttlMs, channel],
      );
      return toLease(rows[0]!);
    },

    /** Extends a lease still held under its token (even past expiry, if nobody took it meanwhile); null when lost. */
    async renew(lease: Lease, ttlMs: number, now: number): Promise<Lease | null> {
      const { rows } = await db.query<LeaseRow>(
        `UPDATE resource_leases SET expires_at = $4::bigint + $5::bigint
          WHERE resource = $1 AND holder = $2 AND token = $3 RETURNING resource, holder, token, expires_at`,
        [lease.resource, lease.holder, lease.token, now, ttlMs],
      );
      return rows[0] ? toLease(rows[0]) : null;
    },

    /**
     * Gives the resource up at once (the next taker need not wait for expiry); false when it was already lost. Its
     * commit does not wait for the WAL flush (synchronous_commit off for this statement's own transaction: call it on
     * a pool, never inside a unit): a release lost in a server crash only leaves the lease to run to its expiry, as a
     * crashed holder's does, and the token still fences. One fsync fewer per session run (decision "PostgreSQL
     * throughput: where the time went"); take and renew stay durable, since losing them could hand a token out twice.
     */
    async release(lease: Lease, now: number): Promise<boolean> {
      const { rowCount } = await db.query(
        `UPDATE resource_leases SET holder = NULL, expires_at = $4
          WHERE resource = $1 AND holder = $2 AND token = $3 AND set_config('synchronous_commit', 'off', true) IS NOT NULL`,
        [lease.resource, lease.holder, lease.token, now],
      );
      return rowCount === 1;
    },

    /** The current lease of a resource, if anyone holds one (expired or not). */
    async current(resource: string): Promise<Lease | null> {
      const { rows } = await db.query<LeaseRow>(
        'SELECT resource, holder, token, expires_at FROM resource_leases WHERE resource = $1 AND holder IS NOT NULL',
        [resource],
      );
      return rows[0] ? toLease(rows[0]) : null;
    },
  };
}

/**
 * Call first inside the transaction of a write made under a lease: throws StaleLeaseError unless `token` is still
 * the resource's current token. FOR SHARE keeps the lease row locked until that transaction ends, so a takeover
 * (which updates the row) waits for the write to commit and can never interleave with it.
 */
export async function assertFenced(tx: Queryable, resource: string, token: number): Promise<void> {
  const { rowCount } = await tx.query(
    'SELECT 1 FROM resource_leases WHERE resource = $1 AND token = $2 AND holder IS NOT NULL FOR SHARE',
    [resource, token],
  );
  if (rowCount !== 1) throw new StaleLeaseError(resource, token);
}

export type Leases = ReturnType<typeof createLeases>;
