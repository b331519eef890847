// Pure step computation (actions collected, not executed) and snapshot <-> row conversion, per actor kind.
import { createActor, fromTransition, type AnyActorScope, type AnyMachineSnapshot, type AnyStateMachine, type EventObject } from 'xstate';
import type { ActorSnapshotRow } from '../../storage/repos/snapshots.repo.js';
import { errorMessage, type ActorFailureReason } from './actor-failure.js';
import type { ActorKindOptions } from './registry-types.js';

export interface KindDef {
  readonly name: string;
  readonly machine: AnyStateMachine;
  readonly version: number;
  readonly options: ActorKindOptions<AnyStateMachine>;
  readonly stepper: Stepper;
}

export interface Computed {
  readonly next: AnyMachineSnapshot;
  readonly emitted: EventObject[];
}

type Executable = { type: string; params?: unknown };

/**
 * Computes steps without executing actions, like xstate's `transition()`/`initialTransition()`, but on one inert
 * actor scope per kind: those helpers build a throwaway actor per call, which evaluates the machine's initial
 * context with no input (a thrown TypeError for most of ours) and costs several times the step itself.
 * Sound for machines without spawned or invoked children (ours: effects are emitted events and provided actions).
 */
export function createStepper(machine: AnyStateMachine) {
  const self = createActor(fromTransition((state: null) => state, null));
  let sink: Executable[] = [];
  const scope = {
    self,
    system: self.system,
    id: '',
    sessionId: '',
    logger: () => {},
    defer: () => {},
    emit: () => {},
    stopChild: () => {},
    actionExecutor: (action: Executable) => void sink.push(action),
  } as unknown as AnyActorScope;

  function collect(compute: () => AnyMachineSnapshot, emitted: EventObject[]): Computed {
    sink = [];
    const next = compute();
    if (next.status === 'error') throw next.error instanceof Error ? next.error : new Error(errorMessage(next.error));
    for (const action of sink) if (action.type === 'xstate.emit') emitted.push((action.params as { event: EventObject }).event);
    sink = [];
    return { next, emitted };
  }

  return {
    transition: (before: AnyMachineSnapshot, event: EventObject): Computed => collect(() => machine.transition(before, event, scope), []),
    spawn(input: unknown, event: EventObject | undefined): Computed {
      const initial = collect(() => machine.getInitialSnapshot(scope, input), []);
      return event === undefined ? initial : collect(() => machine.transition(initial.next, event, scope), initial.emitted);
    },
  };
}

export type Stepper = ReturnType<typeof createStepper>;

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
