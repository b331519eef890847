// A session's turns run on one node at a time: a lease `session:<id>` per running session, renewed while held, fencing its units.
/*
 * The dispatcher claims a session before running its queue and releases it when the queue parks or empties, so an
 * idle or suspended session holds nothing and any node may take it next. While held, a heartbeat renews the lease
 * every ttl/3; a renewal that finds the lease gone (this node stalled past the TTL and another took over) aborts
 * `lost`, and the token check in every unit submitted under the claim (storage/postgres/fence.ts) refuses what the
 * stale run still tries to write. A node that dies keeps its leases until they expire; the takeover scan of every
 * other node then finds the session's runnable work and runs it from durable state, as a restart does.
 */
import type { SessionClaim, SessionOwnership } from '../port/ownership.js';
import type { PostgresPool } from './connection.js';
import { runFenced, type Fence } from './fence.js';
import { createLeases, type Lease } from './leases.js';
import { SESSION_SEIZED_CHANNEL } from './session-notify.js';

export interface PostgresSessionOwnershipOptions {
  pool: PostgresPool;
  /** This node's name in `resource_leases.holder` (unique per process). */
  node: string;
  /** Epoch ms (the service's clock). */
  now: () => number;
  /** How long a dead node keeps its sessions (default 15 s); renewed every ttl/3. */
  ttlMs?: number;
  /** How often the takeover scan runs (default ttl/3). */
  scanEveryMs?: number;
}

export const sessionResource = (sessionId: string): string => `session:${sessionId}`;

export function createPostgresSessionOwnership(options: PostgresSessionOwnershipOptions): SessionOwnership {
  const { pool, node, now } = options;
  const ttlMs = options.ttlMs ?? 15_000;
  const leases = createLeases(pool);
  const heartbeats = new Set<NodeJS.Timeout>();
  /** Renewals in flight: close() waits for them, so none reaches a pool that closes next. */
  const renewals = new Set<Promise<void>>();
  /** Claims held by this node, by session: a seize notice checks one at once, a local seize shares it. */
  const holding = new Map<string, { claim: SessionClaim; fence: Fence; check(): void }>();
  let closed = false;

  function held(sessionId: string, lease: Lease): SessionClaim {
    let current = lease;
    const fence: Fence = { resource: lease.resource, token: lease.token, active: true };
    const lost = new AbortController();
    const forget = (): void => {
      clearInterval(heartbeat);
      heartbeats.delete(heartbeat);
      if (holding.get(sessionId)?.claim === claim) holding.delete(sessionId);
    };
    // The fence stays active: what the stale run still submits must reach the token check and be refused.
    const lose = (): void => {
      forget();
      lost.abort();
    };
    const check = (): void => {
      if (closed) return;
      const renewal = leases.renew(current, ttlMs, now()).then(
        (renewed) => void (renewed === null ? lose() : (current = renewed)),
        // A failed round trip is not a lost lease: the next beat tries again well before expiry.
        () => {},
      );
      renewals.add(renewal);
      void renewal.finally(() => renewals.delete(renewal));
    };
    const heartbeat = setInterval(check, Math.max(1, Math.floor(ttlMs / 3)));
    heartbeat.unref();
    heartbeats.add(heartbeat);
    const claim: SessionClaim = {
      run: (work) => runFenced(fence, work),
      lost: lost.signal,
      async release() {
        fence.active = false;
        if (lost.signal.aborted) return;
        forget();
        await leases.release(current, now()).catch(() => false);
      },
    };
    holding.set(sessionId, { claim, fence, check });
    return claim;
  }

  /** The session is already run here: work under its claim's fence, and leave the claim to its holder. */
  function shared(entry: { claim: SessionClaim; fence: Fence }): SessionClaim {
    return { run: (work) => runFenced(entry.fence, work), lost: entry.claim.lost, release: () => Promise.resolve() };
  }

  return {
    scanEveryMs: options.scanEveryMs ?? Math.max(1, Math.floor(ttlMs / 3)),
    async claim(sessionId) {
      const lease = await leases.take(sessionResource(sessionId), node, ttlMs, now());
      return lease === null ? null : held(sessionId, lease);
    },
    async seize(sessionId) {
      const mine = holding.get(sessionId);
      if (mine !== undefined && !mine.claim.lost.aborted) return shared(mine);
      return held(sessionId, await leases.seize(sessionResource(sessionId), node, ttlMs, now(), SESSION_SEIZED_CHANNEL));
    },
    revoked(sessionId) {
      holding.get(sessionId)?.check();
    },
    async orphans(limit) {
      // Executions by status (the partial index executions_unsettled) joined to their session's lease by primary key.
      const { rows } = await pool.query<{ session_id: string }>(
        `SELECT DISTINCT e.session_id FROM executions e
           LEFT JOIN resource_leases l ON l.resource = 'session:' || e.session_id
          WHERE e.status IN ('queued', 'running', 'resume_queued') AND (l.holder IS NULL OR l.expires_at <= $1)
          LIMIT $2`,
        [now(), limit],
      );
      return rows.map((row) => row.session_id);
    },
    async close() {
      closed = true;
      for (const heartbeat of heartbeats) clearInterval(heartbeat);
      heartbeats.clear();
      holding.clear();
      await Promise.all([...renewals]);
    },
  };
}
