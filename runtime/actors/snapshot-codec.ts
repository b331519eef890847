// Snapshot <-> stored actor snapshot record conversion, per actor kind (the registry's stored record).
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type { ActorSnapshot } from '../../storage/records/snapshots.js';
import { errorMessage, type ActorFailureReason } from './actor-failure.js';
import type { DurableMachine } from './durable-step.js';
import type { ActorKindOptions } from './registry-types.js';

export interface KindDef {
  readonly name: string;
  readonly version: number;
  readonly options: ActorKindOptions<AnyStateMachine>;
  readonly durable: DurableMachine<AnyStateMachine>;
}

export function toRow(def: KindDef, id: string, snapshot: AnyMachineSnapshot, now: number): ActorSnapshot {
  return {
    actorId: id,
    machine: def.name,
    machineVersion: def.version,
    status: snapshot.status === 'done' ? 'done' : 'active',
    snapshot: JSON.stringify(def.durable.persist(snapshot)),
    updatedAt: now,
  };
}

/** The snapshot a row of this kind holds, or why it may not be restored. */
export function readRow(def: KindDef, row: ActorSnapshot): { snapshot: AnyMachineSnapshot } | { reason: ActorFailureReason } {
  if (row.status === 'failed') return { reason: { code: 'retired' } };
  if (row.machineVersion !== def.version) {
    return { reason: { code: 'machine_version_mismatch', stored: row.machineVersion, current: def.version } };
  }
  try {
    return { snapshot: def.durable.restore(JSON.parse(row.snapshot)) };
  } catch (error) {
    return { reason: { code: 'snapshot_unreadable', error: errorMessage(error) } };
  }
}
