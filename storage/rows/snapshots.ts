// The actor_snapshots table's row and its mapping to the ActorSnapshot record, one for both drivers.
import type { ActiveSnapshot, ActorSnapshot, ActorSnapshotStatus } from '../records/snapshots.js';

/** No codec kind: `snapshot` is text kept verbatim (PostgreSQL's json column is read back as `snapshot::text`). */
export interface ActorSnapshotRow {
  actor_id: string;
  machine: string;
  machine_version: number;
  status: ActorSnapshotStatus;
  snapshot: string;
  updated_at: number;
}

export const snapshotFromRow = (r: ActorSnapshotRow): ActorSnapshot => ({
  actorId: r.actor_id,
  machine: r.machine,
  machineVersion: r.machine_version,
  status: r.status,
  snapshot: r.snapshot,
  updatedAt: r.updated_at,
});

export const snapshotToRow = (a: ActorSnapshot) => ({
  actor_id: a.actorId,
  machine: a.machine,
  machine_version: a.machineVersion,
  status: a.status,
  snapshot: a.snapshot,
  updated_at: a.updatedAt,
});

export const activeFromRow = (r: ActorSnapshotRow & { rowid: number }): ActiveSnapshot => ({ ...snapshotFromRow(r), rowid: r.rowid });
