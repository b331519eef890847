// Durable timers on PostgreSQL (storage/repos/timers.repo.ts's functions, async): at most one unfired timer per (kind, target).
import type { NewTimer } from '../../records/timers.js';
import { postgresCodec } from '../../row-codec.js';
import { timerRows } from '../../rows/timers.js';
import { many, one, run, scalar, upsert, type Queryable } from './sql.js';

const { fromRow, toRow } = timerRows(postgresCodec);

// Kinds and excluded ids travel as text[] parameters. `id <> ALL('{}')` is true, so an empty exclusion list excludes nothing.
// Both scheduler queries carry timers_due's predicate (fired_at IS NULL) and read it in due_at order: see
// test/storage/postgres/trigger-races.test.ts for their plans over a few thousand rows.
const DUE_FILTER = 'fired_at IS NULL AND kind = ANY($1::text[]) AND id <> ALL($2::text[])';

export function createPostgresTimersRepo(q: Queryable) {
  return {
    /**
     * Replaces the unfired timer of (kind, target_id), if any: a target has one deadline per kind. One upsert on
     * timers_target rather than SQLite's delete then insert: two nodes replacing the same deadline at once would
     * otherwise both delete, and the second insert would meet the first's row (a unique violation) instead of winning.
     * The replaced row takes the new timer's id and every column, so it ends exactly as SQLite's freshly inserted one
     * (the old id is gone: markFired of it answers false). The conflict target repeats timers_target's predicate.
     */
    replace: (timer: NewTimer): Promise<void> =>
      upsert(q, 'timers', toRow(timer), '(kind, target_id) WHERE fired_at IS NULL', ['id', 'due_at', 'payload', 'created_at']),
    cancel: async (kind: string, targetId: string): Promise<boolean> =>
      (await run(q, 'DELETE FROM timers WHERE kind = $1 AND target_id = $2 AND fired_at IS NULL', [kind, targetId])) > 0,
    get: (id: string) => one(q, 'SELECT * FROM timers WHERE id = $1', [id], fromRow),
    pending: (kind: string, targetId: string) =>
      one(q, 'SELECT * FROM timers WHERE kind = $1 AND target_id = $2 AND fired_at IS NULL', [kind, targetId], fromRow),
    due: (now: number, kinds: readonly string[], excludeIds: readonly string[], limit: number) =>
      many(q, `SELECT * FROM timers WHERE ${DUE_FILTER} AND due_at <= $3 ORDER BY due_at LIMIT $4`, [kinds, excludeIds, now, limit], fromRow),
    nextDueAt: async (kinds: readonly string[], excludeIds: readonly string[]): Promise<number | null> =>
      (await scalar<number | null>(q, `SELECT MIN(due_at) FROM timers WHERE ${DUE_FILTER}`, [kinds, excludeIds])) ?? null,
    /** False when the timer is already fired or no longer exists (cancelled or replaced). */
    markFired: async (id: string, now: number): Promise<boolean> =>
      (await run(q, 'UPDATE timers SET fired_at = $1 WHERE id = $2 AND fired_at IS NULL', [now, id])) > 0,
  };
}

