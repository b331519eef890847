// Registry of durable actors: one step at a time per actor, its snapshot row committed with its effect rows.
/*
 * The protocol ("a state change and its rows commit together; the answer comes after commit"):
 *
 *   const turns = registry.register('session-turn', { machine: sessionTurnMachine, version, onFailure });
 *   const reply = await turns.transition(executionId, { type: 'START', now: clock.now() }, async (step, tx) => {
 *     await tx.repos.executions.markRunning(executionId);   // effect rows, in the same transaction
 *     return { state: step.snapshot.value };
 *   });                                                     // resolves only after the commit
 *
 * Each step is the shared durable step (durable-step.ts): the stored snapshot row restored, the machine's pure
 * transition, the effects of what it emitted and the next snapshot row written in one group-commit unit of work.
 * Under the actor's lock steps of one actor never interleave; if the effects throw (a 409 refusal, a constraint)
 * nothing is written and the actor did not move. Nothing runs an actor: the registry keeps the last committed
 * snapshot of recently used actors in memory, so the next step skips the row read, and only a committed step
 * replaces it. Machines must be deterministic (time arrives in events) and spawn nothing; deadlines go through
 * runtime/scheduler. Idle snapshots are dropped after `idleMs` of the injected clock and read back on demand.
 */
import type { AnyMachineSnapshot, AnyStateMachine, EventObject } from 'xstate';
import type { Storage } from '../../storage/port/storage.js';
import { isManualClock, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { ActorFailureError, errorMessage, type ActorFailure, type ActorFailureReason } from './actor-failure.js';
import { createActorLocks } from './actor-locks.js';
import { durableMachine } from './durable-step.js';
import type { ActorKindHandle, ActorKindOptions, ActorRegistry, ActorStep, MachineMap, SnapshotRepos, SpawnOptions, StepEffects } from './registry-types.js';
import { readRow, toRow, type KindDef } from './snapshot-codec.js';

export interface ActorRegistryOptions {
  store: { repos: SnapshotRepos; writer: Storage['writer'] };
  clock: Clock;
  /** Idle time after which a resident snapshot is dropped from memory (default 5 minutes). */
  idleMs?: number;
  /**
   * False with N nodes on one database: another node may step an actor (an approval decided there), so a snapshot
   * kept here could be stale; every step reads its row (default true: one process, the row read is skipped).
   */
  residentSnapshots?: boolean;
  /** How often the system-clock sweep runs (default min(idleMs, 60 s)); a ManualClock sweeps on every change. */
  sweepEveryMs?: number;
  /** Where handler failures are reported (default: the service's pino logger at warn). */
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** The last committed snapshot of a recently used actor. */
interface Entry {
  readonly def: KindDef;
  readonly id: string;
  snapshot: AnyMachineSnapshot;
  lastUsed: number;
}

interface Plan {
  readonly def: KindDef;
  readonly step: ActorStep;
  readonly spawn: boolean;
}

type AnyMove = { kind: string; id: string; event?: EventObject; input?: unknown };

export function createActorRegistry<K extends MachineMap = MachineMap>(options: ActorRegistryOptions): ActorRegistry<K> {
  const { store, clock } = options;
  const snapshots = store.repos.snapshots;
  const idleMs = options.idleMs ?? 5 * 60_000;
  const logger = options.logger ?? createLogger('warn');
  const kinds = new Map<string, KindDef>();
  // Insertion order is recency order (touch re-inserts), so the idle sweep stops at the first fresh entry.
  const resident = new Map<string, Entry>();
  const locks = createActorLocks();
  // Unrestorable rows are reported to their owner once per process, not on every read.
  const reported = new Set<string>();

  function kindDef(kind: string): KindDef {
    const def = kinds.get(kind);
    if (def === undefined) throw new AppError('INTERNAL', `Unknown actor kind "${kind}".`);
    return def;
  }

  function notifyOwner(def: KindDef, id: string, reason: ActorFailureReason): ActorFailure {
    const failure: ActorFailure = { kind: def.name, id, at: clock.now(), reason };
    // Never awaited: the owner may drive this same actor, whose lock the caller may hold.
    void Promise.resolve()
      .then(() => def.options.onFailure(failure))
      .catch((error: unknown) => logger.error({ kind: def.name, actorId: id, err: errorMessage(error) }, 'actor onFailure handler failed'));
    return failure;
  }

  function unrestorable(def: KindDef, id: string, reason: ActorFailureReason): ActorFailureError {
    if (reason.code !== 'retired' && !reported.has(id)) {
      reported.add(id);
      return new ActorFailureError(notifyOwner(def, id, reason));
    }
    return new ActorFailureError({ kind: def.name, id, at: clock.now(), reason });
  }

  function remember(def: KindDef, id: string, snapshot: AnyMachineSnapshot): void {
    resident.delete(id);
    // A settled actor takes no more steps: it leaves memory (and stays readable from its row).
    if (snapshot.status === 'done' || options.residentSnapshots === false) return;
    resident.set(id, { def, id, snapshot, lastUsed: clock.now() });
  }

  /** The committed snapshot from its row, or the first step its owner implies; undefined when neither exists. */
  async function load(def: KindDef, id: string): Promise<AnyMachineSnapshot | undefined> {
    const row = await snapshots.get(id);
    if (row !== undefined && row.machine !== def.name) throw new AppError('INTERNAL', `Actor ${id} is a ${row.machine}, not a ${def.name}.`);
    if (row === undefined) {
      const spawn = await def.options.implicit?.(id);
      if (spawn === undefined) return undefined;
      return def.durable.start(spawn.input, spawn.event === undefined ? [] : [spawn.event as never]).snapshot;
    }
    const read = readRow(def, row);
    if ('reason' in read) throw unrestorable(def, id, read.reason);
    return read.snapshot;
  }

  /** The committed snapshot, made resident (caller holds the lock for a step). */
  async function current(def: KindDef, id: string): Promise<AnyMachineSnapshot | undefined> {
    const entry = resident.get(id);
    if (entry !== undefined) {
      if (entry.def !== def) throw new AppError('INTERNAL', `Actor ${id} is a ${entry.def.name}, not a ${def.name}.`);
      remember(def, id, entry.snapshot);
      return entry.snapshot;
    }
    const snapshot = await load(def, id);
    if (snapshot !== undefined) remember(def, id, snapshot);
    return snapshot;
  }

  async function plan(move: AnyMove): Promise<Plan> {
    const def = kindDef(move.kind);
    if ('input' in move) {
      // A row that exists but is not resident is caught by the insert inside the unit of work (no extra read).
      if (resident.has(move.id)) throw new AppError('CONFLICT', `Actor ${move.id} already exists.`);
      const step = def.durable.start(move.input as never, move.event === undefined ? [] : [move.event as never]);
      return { def, step: { kind: def.name, id: move.id, ...step }, spawn: true };
    }
    const before = await current(def, move.id);
    if (before === undefined) throw new AppError('NOT_FOUND', `No ${def.name} actor ${move.id}.`);
    const step = def.durable.step(before, [move.event as never]);
    return { def, step: { kind: def.name, id: move.id, ...step }, spawn: false };
  }

  async function write(repos: SnapshotRepos, plan: Plan, now: number): Promise<void> {
    const { def, step } = plan;
    if (!step.changed) return;
    const row = toRow(def, step.id, step.snapshot as AnyMachineSnapshot, now);
    if (plan.spawn) {
      if (!(await repos.snapshots.insert(row))) throw new AppError('CONFLICT', `Actor ${step.id} already exists.`);
    } else if (!(await repos.snapshots.upsert(row))) {
      throw new AppError('INTERNAL', `Actor ${step.id} is not a ${def.name}.`);
    }
  }

  /** After commit: the committed snapshot becomes the resident one; a settled actor is reported to its owner. */
  function apply(plan: Plan): void {
    const { def, step } = plan;
    if (!step.changed) return;
    remember(def, step.id, step.snapshot as AnyMachineSnapshot);
    if ((step.snapshot as AnyMachineSnapshot).status !== 'done') return;
    try {
      def.options.onSettled?.({ id: step.id, snapshot: step.snapshot });
    } catch (error) {
      logger.error({ kind: def.name, actorId: step.id, err: errorMessage(error) }, 'actor onSettled handler failed');
    }
  }

  async function transact<T>(moves: readonly AnyMove[], effects: StepEffects<readonly ActorStep[], T>): Promise<T> {
    const ids = moves.map((move) => move.id);
    if (new Set(ids).size !== ids.length) throw new AppError('INTERNAL', 'One step per actor per unit of work.');
    return locks.run(ids, async () => {
      const plans: Plan[] = [];
      for (const move of moves) plans.push(await plan(move));
      const steps = plans.map((p) => p.step);
      const value = await store.writer.submit(async (tx) => {
        const result = await effects(steps, tx);
        const now = clock.now();
        for (const p of plans) await write(tx.repos, p, now);
        return result;
      });
      for (const p of plans) apply(p);
      return value;
    });
  }

  const single = <T>(move: AnyMove, effects?: StepEffects<ActorStep, T>): Promise<T> =>
    transact([move], (steps, tx) => (effects ? effects(steps[0], tx) : (steps[0] as T)));

  async function peek(kind: string, id: string): Promise<AnyMachineSnapshot | undefined> {
    const def = kindDef(kind);
    const entry = resident.get(id);
    if (entry !== undefined) return entry.snapshot;
    return load(def, id);
  }

  async function spawnRow(repos: SnapshotRepos, kind: string, id: string, input: unknown, event?: EventObject): Promise<ActorStep> {
    const def = kindDef(kind);
    if (resident.has(id)) throw new AppError('CONFLICT', `Actor ${id} already exists.`);
    const step = def.durable.start(input as never, event === undefined ? [] : [event as never]);
    if (!(await repos.snapshots.insert(toRow(def, id, step.snapshot, clock.now())))) throw new AppError('CONFLICT', `Actor ${id} already exists.`);
    return { kind: def.name, id, ...step };
  }

  async function retire(repos: SnapshotRepos, kind: string, id: string): Promise<boolean> {
    const def = kindDef(kind);
    resident.delete(id);
    return repos.snapshots.setStatus(id, def.name, 'failed', clock.now());
  }

  function passivateIdle(): number {
    const cutoff = clock.now() - idleMs;
    let dropped = 0;
    // Deleting the current entry while iterating a Map is safe; no copy of a large resident set.
    for (const entry of resident.values()) {
      if (entry.lastUsed > cutoff) break;
      if (locks.busy(entry.id)) continue;
      resident.delete(entry.id);
      dropped += 1;
    }
    return dropped;
  }

  function startSweep(): () => void {
    if (isManualClock(clock)) return clock.onChange(() => passivateIdle());
    const timer = setInterval(passivateIdle, options.sweepEveryMs ?? Math.min(idleMs, 60_000));
    timer.unref();
    return () => clearInterval(timer);
  }
  const stopSweep = startSweep();

  function handle(kind: string): ActorKindHandle<AnyStateMachine> {
    return {
      kind,
      peek: (id) => peek(kind, id),
      spawn: (id, input, opts?: SpawnOptions<AnyStateMachine, unknown>) => single({ kind, id, input, event: opts?.event }, opts?.effects),
      spawnRow: (repos, id, input, event) => spawnRow(repos, kind, id, input, event as EventObject | undefined),
      transition: (id, event, effects) => single({ kind, id, event }, effects),
      retire: (repos, id) => retire(repos, kind, id),
    } as ActorKindHandle<AnyStateMachine>;
  }

  const registry = {
    register(kind: string, kindOptions: ActorKindOptions<AnyStateMachine>) {
      if (kinds.has(kind)) throw new AppError('INTERNAL', `Actor kind "${kind}" is already registered.`);
      const { machine, version } = kindOptions;
      kinds.set(kind, { name: kind, version, options: kindOptions, durable: durableMachine(machine) });
      return handle(kind);
    },
    peek,
    spawn: (kind: string, id: string, input: unknown, opts?: SpawnOptions<AnyStateMachine, unknown>) =>
      single({ kind, id, input, event: opts?.event }, opts?.effects),
    spawnRow,
    transition: (kind: string, id: string, event: EventObject, effects?: StepEffects<ActorStep, unknown>) => single({ kind, id, event }, effects),
    transact,
    retire,
    passivateIdle,
    get residentCount() {
      return resident.size;
    },
    kinds: () => [...kinds.keys()],
    close() {
      stopSweep();
      resident.clear();
    },
  };
  return registry as unknown as ActorRegistry<K>;
}
