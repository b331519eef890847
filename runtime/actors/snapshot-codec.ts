// Pure step computation (xstate `transition`, actions not executed) and snapshot <-> row conversion per kind.
import { initialTransition, transition, type AnyMachineSnapshot, type AnyStateMachine, type EventObject } from 'xstate';
import type { ActorSnapshotRow } from '../../storage/repos/snapshots.repo.js';
import { errorMessage, type ActorFailureReason } from './actor-failure.js';
import type { ActorKindOptions } from './registry-types.js';

export interface KindDef {
  readonly name: string;
  readonly machine: AnyStateMachine;
  readonly version: number;
  readonly options: ActorKindOptions<AnyStateMachine>;
}

export interface Computed {
  readonly next: AnyMachineSnapshot;
  readonly emitted: EventObject[];
}

type Executable = { type: string; params?: unknown };

function emittedOf(actions: readonly Executable[], into: EventObject[]): EventObject[] {
  for (const action of actions) if (action.type === 'xstate.emit') into.push((action.params as { event: EventObject }).event);
  return into;
}

/** A step that leaves the machine in 'error' is a machine bug for that event: refused before anything commits. */
function checked(next: AnyMachineSnapshot): AnyMachineSnapshot {
  if (next.status === 'error') throw next.error instanceof Error ? next.error : new Error(errorMessage(next.error));
  return next;
}

export function computeTransition(def: KindDef, before: AnyMachineSnapshot, event: EventObject): Computed {
  const [next, actions] = transition(def.machine, before, event);
  return { next: checked(next), emitted: emittedOf(actions as Executable[], []) };
}

export function computeSpawn(def: KindDef, input: unknown, event: EventObject | undefined): Computed {
  const [initial, actions] = initialTransition(def.machine, input);
  const emitted = emittedOf(actions as Executable[], []);
  if (event === undefined) return { next: checked(initial), emitted };
  const [next, more] = transition(def.machine, checked(initial), event);
  return { next: checked(next), emitted: emittedOf(more as Executable[], emitted) };
}

export function toRow(def: KindDef, id: string, snapshot: AnyMachineSnapshot, now: number): ActorSnapshotRow {
  return {
    actor_id: id,
    machine: def.name,
    machine_version: def.version,
    status: snapshot.status === 'done' ? 'done' : 'active',
    snapshot: JSON.stringify(def.machine.getPersistedSnapshot(snapshot)),
    updated_at: now,
  };
}

/** The persisted snapshot of a row this kind may restore, or why it may not. */
export function readRow(def: KindDef, row: ActorSnapshotRow): { persisted: unknown } | { reason: ActorFailureReason } {
  if (row.status === 'failed') return { reason: { code: 'retired' } };
  if (row.machine_version !== def.version) {
    return { reason: { code: 'machine_version_mismatch', stored: row.machine_version, current: def.version } };
  }
  try {
    return { persisted: JSON.parse(row.snapshot) };
  } catch (error) {
    return { reason: { code: 'snapshot_unreadable', error: errorMessage(error) } };
  }
}
