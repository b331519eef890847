// Durable timers (table timers): deadlines as due times, at most one unfired timer per (kind, target).
import type { SqliteDatabase } from '../database.js';
import type { NewTimer, TimerClaim } from '../records/timers.js';
import { sqliteCodec } from '../row-codec.js';
import { mapOptional } from '../row-mapping.js';
import { byDueAt, timerRows, type TimerRow } from '../rows/timers.js';

const { fromRow, toRow } = timerRows(sqliteCodec);

export function createTimersRepo(db: SqliteDatabase) {
  // Kinds and excluded ids travel as JSON arrays so one prepared statement serves any number of them.
  const s = {
    deleteUnfired: db.prepare('DELETE FROM timers WHERE kind = ? AND target_id = ? AND fired_at IS NULL'),
    insert: db.prepare(
      `INSERT INTO timers (id, kind, target_id, due_at, payload, created_at, fired_at)
       VALUES (@id, @kind, @target_id, @due_at, @payload, @created_at, NULL)`,
    ),
    get: db.prepare('SELECT * FROM timers WHERE id = ?'),
    pending: db.prepare('SELECT * FROM timers WHERE kind = ? AND target_id = ? AND fired_at IS NULL'),
    // Claimable: unclaimed, or its claim lapsed (the holder died or is slow). Claims are held only on due timers.
    due: db.prepare(
      `SELECT * FROM timers INDEXED BY timers_due WHERE fired_at IS NULL AND due_at <= @now
         AND (claim_expires_at IS NULL OR claim_expires_at <= @now)
         AND kind IN (SELECT value FROM json_each(@kinds)) AND id NOT IN (SELECT value FROM json_each(@exclude))
       ORDER BY due_at LIMIT @limit`,
    ),
    // One writer: nothing contends, so the claim is the due query's rows, updated (PostgreSQL skips locked rows).
    claimDue: db.prepare(
      `UPDATE timers SET claimed_by = @owner, claim_expires_at = @expires_at WHERE id IN (
         SELECT id FROM timers INDEXED BY timers_due WHERE fired_at IS NULL AND due_at <= @now
           AND (claim_expires_at IS NULL OR claim_expires_at <= @now)
           AND kind IN (SELECT value FROM json_each(@kinds)) AND id NOT IN (SELECT value FROM json_each(@exclude))
         ORDER BY due_at LIMIT @limit)
       RETURNING *`,
    ),
    // The earliest of: a claimable timer's due time, a held claim's lapse (when a dead holder's timers are taken over).
    nextDue: db.prepare(
      `SELECT MIN(at) AS due_at FROM (
         SELECT MIN(due_at) AS at FROM timers INDEXED BY timers_due WHERE fired_at IS NULL
           AND (claim_expires_at IS NULL OR claim_expires_at <= @now)
           AND kind IN (SELECT value FROM json_each(@kinds)) AND id NOT IN (SELECT value FROM json_each(@exclude))
         UNION ALL
         SELECT MIN(claim_expires_at) FROM timers INDEXED BY timers_claims WHERE fired_at IS NULL AND claim_expires_at > @now
           AND kind IN (SELECT value FROM json_each(@kinds)) AND id NOT IN (SELECT value FROM json_each(@exclude)))`,
    ),
    releaseClaims: db.prepare('UPDATE timers SET claimed_by = NULL, claim_expires_at = NULL WHERE fired_at IS NULL AND claim_expires_at IS NOT NULL'),
    holdUntil: db.prepare('UPDATE timers SET claim_expires_at = ? WHERE id = ? AND claimed_by = ? AND fired_at IS NULL'),
    markFired: db.prepare('UPDATE timers SET fired_at = ? WHERE id = ? AND fired_at IS NULL'),
  };
  return {
    /** Replaces the unfired timer of (kind, target_id), if any: a target has one deadline per kind. */
    replace(timer: NewTimer): void {
      s.deleteUnfired.run(timer.kind, timer.targetId);
      s.insert.run(toRow(timer));
    },
    cancel: (kind: string, targetId: string): boolean => s.deleteUnfired.run(kind, targetId).changes > 0,
    get: (id: string) => mapOptional(s.get.get(id), fromRow),
    pending: (kind: string, targetId: string) => mapOptional(s.pending.get(kind, targetId), fromRow),
    /** Due at `now` and claimable (unclaimed, or the claim lapsed), in due order. */
    due: (now: number, kinds: readonly string[], excludeIds: readonly string[], limit: number) =>
      (s.due.all({ now, kinds: JSON.stringify(kinds), exclude: JSON.stringify(excludeIds), limit }) as TimerRow[]).map(fromRow),
    /** Claims up to `limit` of the timers `due` would answer for `claim.owner` until `claim.expiresAt`; the claimed, in due order. */
    claimDue: (claim: TimerClaim) =>
      (
        s.claimDue.all({
          owner: claim.owner,
          expires_at: claim.expiresAt,
          now: claim.now,
          kinds: JSON.stringify(claim.kinds),
          exclude: JSON.stringify(claim.excludeIds),
          limit: claim.limit,
        }) as TimerRow[]
      )
        .map(fromRow)
        .sort(byDueAt),
    /** When the scheduler should next look: a claimable timer's due time or a held claim's lapse after `now`; null when neither. */
    nextDueAt(kinds: readonly string[], excludeIds: readonly string[], now: number): number | null {
      const row = s.nextDue.get({ now, kinds: JSON.stringify(kinds), exclude: JSON.stringify(excludeIds) }) as { due_at: number | null };
      return row.due_at;
    },
    /** Moves the owner's claim's lapse to `until` (a failed handler's retry time: no node retries before it); false when not held. */
    holdUntil: (id: string, owner: string, until: number): boolean => s.holdUntil.run(until, id, owner).changes > 0,
    /** Drops every claim on an unfired timer (a sole scheduler starting: their holder was an earlier, dead process); how many. */
    releaseClaims: (): number => s.releaseClaims.run().changes,
    /** False when the timer is already fired or no longer exists (cancelled or replaced). */
    markFired: (id: string, now: number): boolean => s.markFired.run(now, id).changes > 0,
  };
}

export type TimersRepo = ReturnType<typeof createTimersRepo>;
