// Persisted XState actor snapshots (table actor_snapshots): one row per actor id, upserted per committed step.
import type { SqliteDatabase } from '../database.js';

/** 'failed' marks a row its owner abandoned (e.g. unrestorable after a machine upgrade): boot recovery skips it. */
export type ActorSnapshotStatus = 'active' | 'done' | 'failed';

export interface ActorSnapshotRow {
  actor_id: string;
  /** The registry kind, e.g. 'session-turn'. */
  machine: string;
  machine_version: number;
  status: ActorSnapshotStatus;
  /** JSON of the machine's persisted snapshot. */
  snapshot: string;
  updated_at: number;
}

/** An active row plus its rowid, the stable paging key of the partial index actor_snapshots_active. */
export type ActiveSnapshotRow = ActorSnapshotRow & { rowid: number };

export function createSnapshotsRepo(db: SqliteDatabase) {
  const s = {
    get: db.prepare('SELECT actor_id, machine, machine_version, status, snapshot, updated_at FROM actor_snapshots WHERE actor_id = ?'),
    insert: db.prepare(
      `INSERT INTO actor_snapshots (actor_id, machine, machine_version, status, snapshot, updated_at)
       VALUES (@actor_id, @machine, @machine_version, @status, @snapshot, @updated_at)
       ON CONFLICT (actor_id) DO NOTHING`,
    ),
    upsert: db.prepare(
      `INSERT INTO actor_snapshots (actor_id, machine, machine_version, status, snapshot, updated_at)
       VALUES (@actor_id, @machine, @machine_version, @status, @snapshot, @updated_at)
       ON CONFLICT (actor_id) DO UPDATE SET machine_version = excluded.machine_version, status = excluded.status,
         snapshot = excluded.snapshot, updated_at = excluded.updated_at
       WHERE actor_snapshots.machine = excluded.machine`,
    ),
    setStatus: db.prepare('UPDATE actor_snapshots SET status = ?, updated_at = ? WHERE actor_id = ? AND machine = ?'),
    activePage: db.prepare(
      `SELECT rowid, actor_id, machine, machine_version, status, snapshot, updated_at FROM actor_snapshots
       WHERE machine = ? AND status = 'active' AND rowid > ? ORDER BY rowid LIMIT ?`,
    ),
    activeKinds: db.prepare(`SELECT machine, COUNT(*) AS count FROM actor_snapshots WHERE status = 'active' GROUP BY machine`),
    remove: db.prepare('DELETE FROM actor_snapshots WHERE actor_id = ? AND machine = ?'),
  };
  return {
    get: (actorId: string) => s.get.get(actorId) as ActorSnapshotRow | undefined,
    /** Inserts a new actor's first snapshot; false when the id is already taken. */
    insert: (row: ActorSnapshotRow): boolean => s.insert.run(row).changes > 0,
    /** Writes the latest snapshot; false when the id belongs to another machine kind (nothing written). */
    upsert: (row: ActorSnapshotRow): boolean => s.upsert.run(row).changes > 0,
    setStatus: (actorId: string, machine: string, status: ActorSnapshotStatus, now: number): boolean =>
      s.setStatus.run(status, now, actorId, machine).changes > 0,
    /** Active rows of one kind after `afterRowid`, in rowid order (pages by the partial index). */
    activePage: (machine: string, afterRowid: number, limit: number) => s.activePage.all(machine, afterRowid, limit) as ActiveSnapshotRow[],
    activeKinds: () => s.activeKinds.all() as Array<{ machine: string; count: number }>,
    /** Deletes an actor's row (a swept claim); the next use of the id starts from the machine's initial state. */
    remove: (actorId: string, machine: string): boolean => s.remove.run(actorId, machine).changes > 0,
  };
}

export type SnapshotsRepo = ReturnType<typeof createSnapshotsRepo>;
