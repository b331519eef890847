// The one way a machine moves durably: a stored record restored to a snapshot, a pure step, the next state and its effects.
/*
 * Every machine in machines/ is driven the same way (docs/decisions.md "One shape for durable machines"):
 *
 *   const snapshot = claims.resolve(valueFromRow, contextFromRow);  // or restore(persisted JSON), or start(input)
 *   const step = claims.step(snapshot, [event]);                    // pure: nothing runs, emitted events collected
 *   writer.submit(async (tx) => { await writeRecord(tx, step.snapshot); await applyEffects(tx, step.emitted); });   // one unit
 *
 * The step is xstate's own pure transition (`machine.transition` / `machine.getInitialSnapshot` with an action
 * executor that collects instead of running), exactly what `xstate.transition()` / `initialTransition()` compute
 * (test/runtime/actors/durable-step.test.ts proves it on every machine) but on one inert scope per machine:
 * those helpers build a throwaway actor per call, 60-160 µs against 10-20 µs here, on the accept path.
 * Sound because our machines spawn and invoke nothing: effects are emitted events, applied by the caller.
 */
import {
  createActor,
  fromTransition,
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EmittedFrom,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
  type StateValueFrom,
  type ContextFrom,
} from 'xstate';
import { errorMessage } from './actor-failure.js';

/** One committed-to-be state change: what the record becomes and the facts its unit of work writes rows for. */
export interface DurableStep<M extends AnyStateMachine = AnyStateMachine> {
  /** The state before the events; null when the step created the actor. */
  readonly before: SnapshotFrom<M> | null;
  readonly snapshot: SnapshotFrom<M>;
  /** What the machine emitted (`emit(...)`) on the way, in order. */
  readonly emitted: readonly EmittedFrom<M>[];
  /** False when the machine took none of the events: nothing to write. */
  readonly changed: boolean;
}

export interface DurableMachine<M extends AnyStateMachine> {
  readonly machine: M;
  /** A new actor: its initial state from `input`, then `events` in order. */
  start(input: InputFrom<M>, events?: readonly EventFromLogic<M>[]): DurableStep<M>;
  /** `events` applied in order to a restored snapshot. */
  step(snapshot: SnapshotFrom<M>, events: readonly EventFromLogic<M>[]): DurableStep<M>;
  /** A record's state value and context as a snapshot (records that are projections: claim rows, revisions). */
  resolve(value: StateValueFrom<M>, context: ContextFrom<M>): SnapshotFrom<M>;
  /** A persisted snapshot (the JSON of an actor_snapshots row) back to a snapshot; throws when it does not fit the machine. */
  restore(persisted: unknown): SnapshotFrom<M>;
  /** The snapshot as it is stored. */
  persist(snapshot: SnapshotFrom<M>): unknown;
}

type Executable = { type: string; params?: unknown };

export function durableMachine<M extends AnyStateMachine>(machine: M): DurableMachine<M> {
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

  /** Runs one pure computation, moving `emit` actions to `emitted`; nothing else is executed. */
  function collect(compute: () => AnyMachineSnapshot, emitted: unknown[]): AnyMachineSnapshot {
    sink = [];
    const next = compute();
    const actions = sink;
    sink = [];
    if (next.status === 'error') throw next.error instanceof Error ? next.error : new Error(errorMessage(next.error));
    for (const action of actions) if (action.type === 'xstate.emit') emitted.push((action.params as { event: unknown }).event);
    return next;
  }

  function fold(start: AnyMachineSnapshot, events: readonly EventFromLogic<M>[], emitted: unknown[]): { next: AnyMachineSnapshot; changed: boolean } {
    let next = start;
    let changed = false;
    for (const event of events) {
      const after = collect(() => machine.transition(next, event, scope), emitted);
      // xstate returns the very same snapshot object when no transition was taken.
      if (after !== next) changed = true;
      next = after;
    }
    return { next, changed };
  }

  return {
    machine,
    start(input, events = []) {
      const emitted: unknown[] = [];
      const initial = collect(() => machine.getInitialSnapshot(scope, input), emitted);
      const { next } = fold(initial, events, emitted);
      return { before: null, snapshot: next as SnapshotFrom<M>, emitted: emitted as EmittedFrom<M>[], changed: true };
    },
    step(snapshot, events) {
      const emitted: unknown[] = [];
      const { next, changed } = fold(snapshot as AnyMachineSnapshot, events, emitted);
      return { before: snapshot, snapshot: next as SnapshotFrom<M>, emitted: emitted as EmittedFrom<M>[], changed };
    },
    resolve: (value, context) => machine.resolveState({ value, context } as never) as SnapshotFrom<M>,
    // Throws on a state value the definition does not have.
    restore: (persisted) => machine.restoreSnapshot(persisted as never, scope) as SnapshotFrom<M>,
    persist: (snapshot) => machine.getPersistedSnapshot(snapshot as AnyMachineSnapshot),
  };
}
