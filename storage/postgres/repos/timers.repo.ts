// Durable timers on PostgreSQL (storage/repos/timers.repo.ts's functions, async): at most one unfired timer per (kind, target).
import type { NewTimer, Timer, TimerClaim } from '../../records/timers.js';
import { postgresCodec } from '../../row-codec.js';
import { byDueAt, timerRows } from '../../rows/timers.js';
import { many, one, run, scalar, upsert, type Queryable } from './sql.js';

const { fromRow, toRow } = timerRows(postgresCodec);

// Kinds and excluded ids travel as text[] parameters. `id <> ALL('{}')` is true, so an empty exclusion list excludes nothing.
// Both scheduler queries carry timers_due's predicate (fired_at IS NULL) and read it in due_at order: see
// test/storage/postgres/trigger-races.test.ts for their plans over a few thousand rows.
const DUE_FILTER = 'fired_at IS NULL AND kind = ANY($1::text[]) AND id <> ALL($2::text[])';
// Claimable at $3 (now): unclaimed, or the claim lapsed (its holder died or is slow).
const CLAIMABLE = '(claim_expires_at IS NULL OR claim_expires_at <= $3)';

export function createPostgresTimersRepo(q: Queryable) {
  return {
    /**
     * Replaces the unfired timer of (kind, target_id), if any: a target has one deadline per kind. One upsert on
     * timers_target rather than SQLite's delete then insert: two nodes replacing the same deadline at once would
     * otherwise both delete, and the second insert would meet the first's row (a unique violation) instead of winning.
     * The replaced row takes the new timer's id and every column, so it ends exactly as SQLite's freshly inserted one
     * (the old id is gone: markFired of it answers false), unclaimed. The conflict target repeats timers_target's predicate.
     */
    replace: (timer: NewTimer): Promise<void> =>
      upsert(q, 'timers', { ...toRow(timer), claimed_by: null, claim_expires_at: null }, '(kind, target_id) WHERE fired_at IS NULL', [
        'id',
        'due_at',
        'payload',
        'created_at',
        'claimed_by',
        'claim_expires_at',
      ]),
    cancel: async (kind: string, targetId: string): Promise<boolean> =>
      (await run(q, 'DELETE FROM timers WHERE kind = $1 AND target_id = $2 AND fired_at IS NULL', [kind, targetId])) > 0,
    get: (id: string) => one(q, 'SELECT * FROM timers WHERE id = $1', [id], fromRow),
    pending: (kind: string, targetId: string) =>
      one(q, 'SELECT * FROM timers WHERE kind = $1 AND target_id = $2 AND fired_at IS NULL', [kind, targetId], fromRow),
    /** Due at `now` and claimable, in due order (a read: the scheduler claims only when this finds something). */
    due: (now: number, kinds: readonly string[], excludeIds: readonly string[], limit: number) =>
      many(q, `SELECT * FROM timers WHERE ${DUE_FILTER} AND due_at <= $3 AND ${CLAIMABLE} ORDER BY due_at LIMIT $4`, [kinds, excludeIds, now, limit], fromRow),
    /**
     * Claims up to `limit` due, claimable timers for `claim.owner` until `claim.expiresAt`. SKIP LOCKED: rows another
     * node is claiming or firing right now are passed over, so concurrent schedulers take disjoint batches instead of
     * queueing on the same rows; FOR UPDATE re-checks the predicate on the newest row version, so a timer another
     * node claimed or fired since this statement's snapshot is not taken.
     */
    claimDue: async (claim: TimerClaim): Promise<Timer[]> =>
      (
        await many(
          q,
          `UPDATE timers SET claimed_by = $5, claim_expires_at = $6 WHERE id = ANY(ARRAY(
             SELECT id FROM timers WHERE ${DUE_FILTER} AND due_at <= $3 AND ${CLAIMABLE} ORDER BY due_at LIMIT $4 FOR UPDATE SKIP LOCKED))
           RETURNING *`,
          [claim.kinds, claim.excludeIds, claim.now, claim.limit, claim.owner, claim.expiresAt],
          fromRow,
        )
      ).sort(byDueAt),
    /** When the scheduler should next look: a claimable timer's due time or a held claim's lapse after `now`; null when neither. */
    nextDueAt: async (kinds: readonly string[], excludeIds: readonly string[], now: number): Promise<number | null> =>
      (await scalar<number | null>(
        q,
        `SELECT LEAST((SELECT MIN(due_at) FROM timers WHERE ${DUE_FILTER} AND ${CLAIMABLE}),
                      (SELECT MIN(claim_expires_at) FROM timers WHERE ${DUE_FILTER} AND claim_expires_at > $3))`,
        [kinds, excludeIds, now],
      )) ?? null,
    /** Moves the owner's claim's lapse to `until` (a failed handler's retry time: no node retries before it); false when not held. */
    holdUntil: async (id: string, owner: string, until: number): Promise<boolean> =>
      (await run(q, 'UPDATE timers SET claim_expires_at = $1 WHERE id = $2 AND claimed_by = $3 AND fired_at IS NULL', [until, id, owner])) > 0,
    /** Drops every claim on an unfired timer (a sole scheduler starting: their holder was an earlier, dead process); how many. */
    releaseClaims: (): Promise<number> =>
      run(q, 'UPDATE timers SET claimed_by = NULL, claim_expires_at = NULL WHERE fired_at IS NULL AND claim_expires_at IS NOT NULL', []),
    /** False when the timer is already fired or no longer exists (cancelled or replaced). */
    markFired: async (id: string, now: number): Promise<boolean> =>
      (await run(q, 'UPDATE timers SET fired_at = $1 WHERE id = $2 AND fired_at IS NULL', [now, id])) > 0,
  };
}

