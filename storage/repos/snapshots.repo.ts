// Persisted XState actor snapshots (table actor_snapshots): one row per actor id, upserted per committed step.
import type { SqliteDatabase } from '../database.js';
import { mapOptional } from '../row-mapping.js';
import type { ActiveKindCount, ActiveSnapshot, ActorSnapshot, ActorSnapshotStatus } from '../records/snapshots.js';
import { activeFromRow, snapshotFromRow, snapshotToRow, type ActorSnapshotRow } from '../rows/snapshots.js';

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
    get: (actorId: string) => mapOptional(s.get.get(actorId), snapshotFromRow),
    /** Inserts a new actor's first snapshot; false when the id is already taken. */
    insert: (snapshot: ActorSnapshot): boolean => s.insert.run(snapshotToRow(snapshot)).changes > 0,
    /** Writes the latest snapshot; false when the id belongs to another machine kind (nothing written). */
    upsert: (snapshot: ActorSnapshot): boolean => s.upsert.run(snapshotToRow(snapshot)).changes > 0,
    setStatus: (actorId: string, machine: string, status: ActorSnapshotStatus, now: number): boolean =>
      s.setStatus.run(status, now, actorId, machine).changes > 0,
    /** Active rows of one kind after `afterRowid`, in rowid order (pages by the partial index). */
    activePage: (machine: string, afterRowid: number, limit: number): ActiveSnapshot[] =>
      (s.activePage.all(machine, afterRowid, limit) as Array<ActorSnapshotRow & { rowid: number }>).map(activeFromRow),
    activeKinds: () => s.activeKinds.all() as ActiveKindCount[],
    /** Deletes an actor's row (a swept claim); the next use of the id starts from the machine's initial state. */
    remove: (actorId: string, machine: string): boolean => s.remove.run(actorId, machine).changes > 0,
  };
}

export type SnapshotsRepo = ReturnType<typeof createSnapshotsRepo>;
