// Snapshot <-> actor_snapshots row conversion, per actor kind (the registry's stored record).
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type { ActorSnapshotRow } from '../../storage/repos/snapshots.repo.js';
import { errorMessage, type ActorFailureReason } from './actor-failure.js';
import type { DurableMachine } from './durable-step.js';
import type { ActorKindOptions } from './registry-types.js';

export interface KindDef {
  readonly name: string;
  readonly version: number;
  readonly options: ActorKindOptions<AnyStateMachine>;
  readonly durable: DurableMachine<AnyStateMachine>;
}

export function toRow(def: KindDef, id: string, snapshot: AnyMachineSnapshot, now: number): ActorSnapshotRow {
  return {
    actor_id: id,
    machine: def.name,
    machine_version: def.version,
    status: snapshot.status === 'done' ? 'done' : 'active',
    snapshot: JSON.stringify(def.durable.persist(snapshot)),
    updated_at: now,
  };
}

/** The snapshot a row of this kind holds, or why it may not be restored. */
export function readRow(def: KindDef, row: ActorSnapshotRow): { snapshot: AnyMachineSnapshot } | { reason: ActorFailureReason } {
  if (row.status === 'failed') return { reason: { code: 'retired' } };
  if (row.machine_version !== def.version) {
    return { reason: { code: 'machine_version_mismatch', stored: row.machine_version, current: def.version } };
  }
  try {
    return { snapshot: def.durable.restore(JSON.parse(row.snapshot)) };
  } catch (error) {
    return { reason: { code: 'snapshot_unreadable', error: errorMessage(error) } };
  }
}
