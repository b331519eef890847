// Domain records for persisted XState actor snapshots (storage/repos/snapshots.repo.ts maps them).

/** 'failed' marks a snapshot its owner abandoned (e.g. unrestorable after a machine upgrade): boot recovery skips it. */
export type ActorSnapshotStatus = 'active' | 'done' | 'failed';

export interface ActorSnapshot {
  actorId: string;
  /** The registry kind, e.g. 'session-turn'. */
  machine: string;
  machineVersion: number;
  status: ActorSnapshotStatus;
  /** JSON text of the machine's persisted snapshot: kept as text, the actor codec (runtime/actors/snapshot-codec.ts) reads it. */
  snapshot: string;
  updatedAt: number;
}

/** An active snapshot plus its rowid, the stable paging key of the partial index actor_snapshots_active. */
export interface ActiveSnapshot extends ActorSnapshot {
  rowid: number;
}

/** How many active snapshots one machine kind holds. */
export interface ActiveKindCount {
  machine: string;
  count: number;
}
