// Public types of the actor registry: kinds, steps (one committed state change) and moves.
import type { AnyStateMachine, EventFromLogic, InputFrom, SnapshotFrom } from 'xstate';
import type { Awaitable, PortRepositories } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
import type { ActorFailure } from './actor-failure.js';
import type { DurableStep } from './durable-step.js';

/** The unit a step's effects run in: write through `tx.repos`, publish through `tx.afterCommit`. */
export type StepUnit = UnitContext<PortRepositories>;

/** What the registry writes inside a caller's unit (its `tx.repos`). */
export type SnapshotRepos = Pick<PortRepositories, 'snapshots'>;

/** A step's effects: run inside the step's unit of work, before its snapshot row is written. */
export type StepEffects<S, T> = (step: S, tx: StepUnit) => T | Promise<T>;

/** Kind name -> machine, so registry calls keyed by kind are typed. The default accepts any kind. */
export type MachineMap = Record<string, AnyStateMachine>;

export interface ActorKindOptions<M extends AnyStateMachine> {
  /** The pure machine: its effects are the events it emits, applied by the step's `effects` (nothing runs it). */
  machine: M;
  /** The machine module's MACHINE_VERSION; a snapshot written under another version is not restored. */
  version: number;
  /** After commit, when a step brought the actor to a final state (it is then dropped from memory). */
  onSettled?: (settled: { id: string; snapshot: SnapshotFrom<M> }) => void;
  /**
   * The owner records why the actor's work failed (restarts exhausted, unrestorable snapshot). Called outside
   * the actor's lock, so it may drive the actor (`transition(id, FAIL)`) or retire its row; must be idempotent.
   */
  onFailure: (failure: ActorFailure) => void | Promise<void>;
  /**
   * For kinds whose first state is implied by the owner's own rows (a queued turn is its execution row): when no
   * snapshot row exists, how the actor was spawned. The registry computes that first step on demand and writes the
   * row with the actor's next committed step, so the unit that created the actor writes no snapshot row at all.
   */
  implicit?: (id: string) => Awaitable<{ input: InputFrom<M>; event?: EventFromLogic<M> } | undefined>;
}

/** One state change of one actor (the shared durable step), as computed before commit and handed to its effects. */
export interface ActorStep<M extends AnyStateMachine = AnyStateMachine> extends DurableStep<M> {
  readonly kind: string;
  readonly id: string;
}

export interface TransitionMove<N extends string, M extends AnyStateMachine> {
  readonly kind: N;
  readonly id: string;
  readonly event: EventFromLogic<M>;
}

export interface SpawnMove<N extends string, M extends AnyStateMachine> {
  readonly kind: N;
  readonly id: string;
  readonly input: InputFrom<M>;
  /** An event applied right after the initial state, in the same step (e.g. OPEN on a fresh turn). */
  readonly event?: EventFromLogic<M>;
}

export type MoveOf<K extends MachineMap> = {
  [N in keyof K & string]: TransitionMove<N, K[N]> | SpawnMove<N, K[N]>;
}[keyof K & string];

/** A registered kind, bound: the same operations as the registry's, without repeating the kind. */
export interface ActorKindHandle<M extends AnyStateMachine> {
  readonly kind: string;
  peek(id: string): Promise<SnapshotFrom<M> | undefined>;
  spawn<T = ActorStep<M>>(id: string, input: InputFrom<M>, options?: SpawnOptions<M, T>): Promise<T>;
  spawnRow(repos: SnapshotRepos, id: string, input: InputFrom<M>, event?: EventFromLogic<M>): Promise<ActorStep<M>>;
  transition<T = ActorStep<M>>(id: string, event: EventFromLogic<M>, effects?: StepEffects<ActorStep<M>, T>): Promise<T>;
  retire(repos: SnapshotRepos, id: string): Promise<boolean>;
}

export interface SpawnOptions<M extends AnyStateMachine, T> {
  event?: EventFromLogic<M>;
  effects?: StepEffects<ActorStep<M>, T>;
}

export interface ActorRegistry<K extends MachineMap = MachineMap> {
  register<N extends keyof K & string, M extends K[N]>(kind: N, options: ActorKindOptions<M>): ActorKindHandle<M>;
  /** The committed snapshot (resident, else read from its row, else implied by its owner); undefined when none. */
  peek<N extends keyof K & string>(kind: N, id: string): Promise<SnapshotFrom<K[N]> | undefined>;
  /** Creates the actor; its first snapshot commits with `effects`. Rejects CONFLICT when the id exists. */
  spawn<N extends keyof K & string, T = ActorStep<K[N]>>(kind: N, id: string, input: InputFrom<K[N]>, options?: SpawnOptions<K[N], T>): Promise<T>;
  /**
   * Writes the new actor's first snapshot row inside the caller's unit (its `tx.repos`), for a caller that must
   * create it there (e.g. a firing creating turns). Nothing is made resident: the row is read on first use.
   * Rejects CONFLICT (rolling back the unit) when the id exists.
   */
  spawnRow<N extends keyof K & string>(repos: SnapshotRepos, kind: N, id: string, input: InputFrom<K[N]>, event?: EventFromLogic<K[N]>): Promise<ActorStep<K[N]>>;
  /** Applies `event`: next state + effects() commit together; resolves after commit. */
  transition<N extends keyof K & string, T = ActorStep<K[N]>>(
    kind: N,
    id: string,
    event: EventFromLogic<K[N]>,
    effects?: StepEffects<ActorStep<K[N]>, T>,
  ): Promise<T>;
  /** Several actors' steps in one unit of work (e.g. a claim and the firing it guards): all commit or none. */
  transact<T>(moves: readonly MoveOf<K>[], effects: StepEffects<readonly ActorStep[], T>): Promise<T>;
  /** Marks the row 'failed' (kept as evidence, skipped by boot recovery, never rehydrated) inside your unit (`tx.repos`). */
  retire(repos: SnapshotRepos, kind: keyof K & string, id: string): Promise<boolean>;
  /** Drops snapshots idle for longer than `idleMs`; runs on its own (clock changes or an interval), exposed for tests. */
  passivateIdle(): number;
  readonly residentCount: number;
  /** Registered kind names (boot recovery walks them). */
  kinds(): string[];
  close(): void;
}
