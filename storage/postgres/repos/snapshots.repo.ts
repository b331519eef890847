// Persisted XState actor snapshots on PostgreSQL (storage/repos/snapshots.repo.ts's functions, async).
import type { ActiveKindCount, ActiveSnapshot, ActorSnapshot, ActorSnapshotStatus } from '../../records/snapshots.js';
import { activeFromRow, snapshotFromRow, snapshotToRow } from '../../rows/snapshots.js';
import { insertUnlessConflict, many, one, run, type Queryable } from './sql.js';

/** `snapshot` is a json column read back as the very text written (the actor codec parses it). */
const COLUMNS = 'actor_id, machine, machine_version, status, snapshot::text AS snapshot, updated_at';

export function createPostgresSnapshotsRepo(q: Queryable) {
  return {
    get: (actorId: string) => one(q, `SELECT ${COLUMNS} FROM actor_snapshots WHERE actor_id = $1`, [actorId], snapshotFromRow),
    /** Inserts a new actor's first snapshot; false when the id is already taken. */
    insert: (snapshot: ActorSnapshot): Promise<boolean> => insertUnlessConflict(q, 'actor_snapshots', snapshotToRow(snapshot), '(actor_id)'),
    /** Writes the latest snapshot; false when the id belongs to another machine kind (nothing written). */
    upsert: async (snapshot: ActorSnapshot): Promise<boolean> => {
      const r = snapshotToRow(snapshot);
      return (
        (await run(
          q,
          `INSERT INTO actor_snapshots (actor_id, machine, machine_version, status, snapshot, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (actor_id) DO UPDATE SET machine_version = EXCLUDED.machine_version, status = EXCLUDED.status,
             snapshot = EXCLUDED.snapshot, updated_at = EXCLUDED.updated_at
           WHERE actor_snapshots.machine = EXCLUDED.machine`,
          [r.actor_id, r.machine, r.machine_version, r.status, r.snapshot, r.updated_at],
        )) > 0
      );
    },
    setStatus: async (actorId: string, machine: string, status: ActorSnapshotStatus, now: number): Promise<boolean> =>
      (await run(q, 'UPDATE actor_snapshots SET status = $1, updated_at = $2 WHERE actor_id = $3 AND machine = $4', [status, now, actorId, machine])) > 0,
    /**
     * Active rows of one kind after `afterRowid`, in rowid order. `rowid` is an identity column here (SQLite's is
     * implicit): assigned once at insert and kept by upserts, so it is the same stable paging key.
     */
    activePage: (machine: string, afterRowid: number, limit: number): Promise<ActiveSnapshot[]> =>
      many(
        q,
        `SELECT rowid, ${COLUMNS} FROM actor_snapshots WHERE machine = $1 AND status = 'active' AND rowid > $2 ORDER BY rowid LIMIT $3`,
        [machine, afterRowid, limit],
        activeFromRow,
      ),
    /** Kinds in byte order, as SQLite's GROUP BY returns them. */
    activeKinds: (): Promise<ActiveKindCount[]> =>
      many(
        q,
        `SELECT machine, COUNT(*) AS count FROM actor_snapshots WHERE status = 'active' GROUP BY machine ORDER BY machine COLLATE "C"`,
        [],
        (r: ActiveKindCount) => r,
      ),
    /** Deletes an actor's row (a swept claim); the next use of the id starts from the machine's initial state. */
    remove: async (actorId: string, machine: string): Promise<boolean> =>
      (await run(q, 'DELETE FROM actor_snapshots WHERE actor_id = $1 AND machine = $2', [actorId, machine])) > 0,
  };
}
