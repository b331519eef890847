// Durable timers (table timers): deadlines as due times, at most one unfired timer per (kind, target).
import type { SqliteDatabase } from '../database.js';
import type { NewTimer } from '../records/timers.js';
import { sqliteCodec } from '../row-codec.js';
import { mapOptional } from '../row-mapping.js';
import { timerRows, type TimerRow } from '../rows/timers.js';

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
    due: db.prepare(
      `SELECT * FROM timers INDEXED BY timers_due WHERE fired_at IS NULL AND due_at <= ?
         AND kind IN (SELECT value FROM json_each(?)) AND id NOT IN (SELECT value FROM json_each(?))
       ORDER BY due_at LIMIT ?`,
    ),
    nextDue: db.prepare(
      `SELECT MIN(due_at) AS due_at FROM timers INDEXED BY timers_due WHERE fired_at IS NULL
         AND kind IN (SELECT value FROM json_each(?)) AND id NOT IN (SELECT value FROM json_each(?))`,
    ),
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
    due: (now: number, kinds: readonly string[], excludeIds: readonly string[], limit: number) =>
      (s.due.all(now, JSON.stringify(kinds), JSON.stringify(excludeIds), limit) as TimerRow[]).map(fromRow),
    nextDueAt(kinds: readonly string[], excludeIds: readonly string[]): number | null {
      const row = s.nextDue.get(JSON.stringify(kinds), JSON.stringify(excludeIds)) as { due_at: number | null };
      return row.due_at;
    },
    /** False when the timer is already fired or no longer exists (cancelled or replaced). */
    markFired: (id: string, now: number): boolean => s.markFired.run(now, id).changes > 0,
  };
}

export type TimersRepo = ReturnType<typeof createTimersRepo>;
