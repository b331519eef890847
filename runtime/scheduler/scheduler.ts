// Durable timers: deadlines live in the database as due times; each node claims due timers and delivers them to their kind's handler.
/*
 * Scheduling writes inside the caller's unit of work: `schedule(tx.repos, spec)` (e.g. in the effects of
 * registry.transition), so a deadline commits with the state it guards.
 *
 * Delivery is exactly once: the handler runs `delivery.markFired` inside the unit of work that holds its
 * effects, so "fired" and the effects commit together. A crash before that commit redelivers at the next boot;
 * after it, never. markFired throws when the timer is no longer pending (cancelled or replaced meanwhile),
 * rolling back the handler's effects. A handler that resolves without having committed markFired (it had no
 * rows to write) is marked fired by the scheduler. A handler that throws leaves the timer due: it is retried
 * after a backoff of the injected clock (1 s doubling, capped at 60 s; kept in memory only).
 *
 * Across nodes (issue 16 item 4): every node's scheduler sees the same due timers, so a node first claims a batch
 * in its own unit (`timers.claimDue`: owner = nodeId, lapsing after claimTtlMs; PostgreSQL skips rows another node
 * is locking) and runs only what it claimed: one node runs a handler, and a webhook's POST happens only after its
 * claim committed. A claim that lapses (its node died, or a handler outran claimTtlMs) is claimable again, by any
 * node: the handler may then run twice, but markFired stays guarded, so the late unit fails and its transactional
 * effects roll back; only what a handler does outside its unit (an HTTP POST) can repeat (at least once). A failed
 * handler keeps its claim until its retry time (`holdUntil`), so its backoff holds on every node. A sole scheduler
 * (SQLite) drops leftover claims at start: a crash still redelivers at the next boot.
 *
 * Waking: with a ManualClock every clock change delivers what is due (no sleeping in tests); with the system
 * clock one setTimeout is armed to the next due time, capped at maxDelayMs so a clock jump costs at most that,
 * and re-armed after every schedule/cancel commit and every delivery.
 */
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { Timer } from '../../storage/records/timers.js';
import { isManualClock, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { createLogger } from '../logger.js';

export interface TimerSpec {
  /** Which handler receives it, e.g. 'claim-expiry'. A target has at most one pending timer per kind. */
  kind: string;
  targetId: string;
  /** Epoch ms of the injected clock. */
  dueAt: number;
  payload?: unknown;
}

export interface DueTimer {
  readonly id: string;
  readonly kind: string;
  readonly targetId: string;
  readonly dueAt: number;
  readonly payload: unknown;
  readonly createdAt: number;
  /** 1 on first delivery; higher after failed attempts in this process. */
  readonly attempt: number;
}

/** The repositories a timer write needs: a unit's `tx.repos`. */
export type TimerRepos = Pick<PortRepositories, 'timers'>;

export interface TimerDelivery {
  /** Run inside the unit of work holding the handler's effects (its `tx.repos`); rejects if the timer is no longer pending. */
  markFired(repos: TimerRepos): Promise<void>;
}

export type TimerHandler = (timer: DueTimer, delivery: TimerDelivery) => void | Promise<void>;

export interface SchedulerOptions {
  store: { repos: TimerRepos; writer: Storage['writer'] };
  clock: Clock;
  /** Longest single sleep with the system clock (default 60 s). */
  maxDelayMs?: number;
  /** Handlers running at once (default 64). */
  concurrency?: number;
  retry?: { baseMs: number; maxMs: number };
  /** This scheduler's name on its claims (default: a fresh id per scheduler). */
  nodeId?: string;
  /**
   * How long a claim holds (default 30 s): a dead node's timers wait this long before another node takes them
   * over, and a handler running longer may be run again elsewhere. Above the longest handler (a webhook attempt: 10 s).
   */
  claimTtlMs?: number;
  /**
   * This scheduler alone runs timers on its database (SQLite: one process owns the file). start() then drops the
   * claims an earlier, crashed process left, so its timers are redelivered at boot rather than after claimTtlMs.
   * Never on a shared database: it would take other live nodes' claims.
   */
  sole?: boolean;
  /**
   * Timers are delivered by another scheduler on this database (SWITCHYARD_EXECUTION=thread: the worker thread's):
   * this one only writes them, never claims or runs one, and calls this after a schedule or cancel committed.
   */
  deliveredElsewhere?: () => void;
  /** Where restarts and handler failures are reported (default: the service's pino logger at warn). */
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export interface Scheduler {
  /** Inserts (replacing the target's pending timer of that kind) inside the caller's unit (`tx.repos`); the id. */
  schedule(repos: TimerRepos, spec: TimerSpec): Promise<string>;
  /** Deletes the pending timer of (kind, targetId) inside the caller's unit (`tx.repos`); false when there was none. */
  cancel(repos: TimerRepos, kind: string, targetId: string): Promise<boolean>;
  on(kind: string, handler: TimerHandler): void;
  /** Due time of the pending timer of (kind, targetId); null when there is none. Inside a unit, pass its `tx.repos`. */
  pendingDueAt(kind: string, targetId: string, repos?: TimerRepos): Promise<number | null>;
  /** Starts delivering; resolves once the timers already due (e.g. while the process was down) are delivered. */
  start(): Promise<number>;
  /** Delivers everything due now and waits until none is in flight; resolves with how many were delivered. */
  drain(): Promise<number>;
  /** Stops claiming timers and resolves once the read and the deliveries in flight ended (the pool may close next). */
  close(): Promise<void>;
}

export class TimerNotPendingError extends AppError {
  constructor(id: string) {
    super('CONFLICT', `Timer ${id} is no longer pending.`);
    this.name = 'TimerNotPendingError';
  }
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, clock } = options;
  const timers = store.repos.timers;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const concurrency = options.concurrency ?? 64;
  const retry = options.retry ?? { baseMs: 1_000, maxMs: 60_000 };
  const logger = options.logger ?? createLogger('warn');
  const nodeId = options.nodeId ?? newId();
  const claimTtlMs = options.claimTtlMs ?? 30_000;
  const manual = isManualClock(clock);
  const handlers = new Map<string, TimerHandler>();
  let kinds: string[] = [];
  const inFlight = new Map<string, Promise<void>>();
  const backoff = new Map<string, { attempts: number; notBefore: number }>();
  let started = false;
  let closed = false;
  let wake: NodeJS.Timeout | null = null;
  let pokeQueued = false;
  let delivered = 0;
  const stopListening = manual ? clock.onChange(() => poke()) : () => {};

  /** In flight or backing off: not deliverable now. */
  function blocked(now: number): string[] {
    const ids = [...inFlight.keys()];
    for (const [id, b] of backoff) if (b.notBefore > now) ids.push(id);
    return ids;
  }

  async function markFired(repos: TimerRepos, id: string): Promise<void> {
    if (!(await repos.timers.markFired(id, clock.now()))) throw new TimerNotPendingError(id);
  }

  async function deliver(row: Timer): Promise<void> {
    const handler = handlers.get(row.kind);
    if (handler === undefined) return;
    const attempt = (backoff.get(row.id)?.attempts ?? 0) + 1;
    try {
      const timer: DueTimer = {
        id: row.id,
        kind: row.kind,
        targetId: row.targetId,
        dueAt: row.dueAt,
        payload: row.payload,
        createdAt: row.createdAt,
        attempt,
      };
      await handler(timer, { markFired: (repos) => markFired(repos, row.id) });
      const after = await timers.get(row.id);
      if (after !== undefined && after.firedAt === null) {
        await store.writer.submit(async (tx) => void (await tx.repos.timers.markFired(row.id, clock.now())));
      }
      backoff.delete(row.id);
      delivered += 1;
    } catch (error) {
      const delay = Math.min(retry.baseMs * 2 ** (attempt - 1), retry.maxMs);
      const notBefore = clock.now() + delay;
      backoff.set(row.id, { attempts: attempt, notBefore });
      // Best effort: if this write fails, the claim lapses at its expiry instead.
      await store.writer.submit(async (tx) => void (await tx.repos.timers.holdUntil(row.id, nodeId, notBefore))).catch(() => undefined);
      logger.warn({ timerId: row.id, kind: row.kind, attempt, err: error instanceof Error ? error.message : String(error) }, 'timer handler failed; timer stays due');
    }
  }

  function launch(row: Timer): void {
    const running = deliver(row).finally(() => {
      inFlight.delete(row.id);
      poke();
    });
    inFlight.set(row.id, running);
  }

  /** One poke reads at a time; a poke asked for meanwhile runs once the read finished (no timer launched twice). */
  let poking: Promise<void> | null = null;
  let pokeAgain = false;

  function poke(): void {
    if (!started || closed) return;
    if (poking !== null) {
      pokeAgain = true;
      return;
    }
    poking = pokeOnce().finally(() => {
      poking = null;
      if (pokeAgain) {
        pokeAgain = false;
        poke();
      }
    });
  }

  async function pokeOnce(): Promise<void> {
    const now = clock.now();
    const room = concurrency - inFlight.size;
    try {
      if (room > 0) for (const row of await claim(now, room)) if (!inFlight.has(row.id)) launch(row);
      await arm(now);
    } catch (error) {
      logger.error({ err: error instanceof Error ? error.message : String(error) }, 'scheduler could not read due timers');
    }
  }

  /** Claims up to `room` due timers; a read first, so a poke with nothing due writes nothing (issue 12). */
  async function claim(now: number, room: number): Promise<Timer[]> {
    const excludeIds = blocked(now);
    if ((await timers.due(now, kinds, excludeIds, 1)).length === 0) return [];
    const expiresAt = now + claimTtlMs;
    return store.writer.submit((tx) => tx.repos.timers.claimDue({ owner: nodeId, now, expiresAt, kinds, excludeIds, limit: room }));
  }

  async function arm(now: number): Promise<void> {
    if (wake !== null) clearTimeout(wake);
    wake = null;
    // A ManualClock pokes on change; a full pipeline pokes when a delivery finishes.
    if (manual || inFlight.size >= concurrency || kinds.length === 0) return;
    const pending = await timers.nextDueAt(kinds, blocked(now), now);
    if (closed) return;
    const retryAt = Math.min(...[...backoff.values()].map((b) => b.notBefore).filter((at) => at > now));
    const next = Math.min(pending ?? Infinity, retryAt);
    if (next === Infinity) return;
    wake = setTimeout(poke, Math.max(0, Math.min(next - now, maxDelayMs)));
    wake.unref();
  }

  /**
   * After the caller's unit commits: an empty unit submitted now commits in the same batch or a later one (the
   * writer commits in submission order, one bounded batch per loop turn), so the poke sees the new timer.
   */
  function pokeAfterCommit(): void {
    if (pokeQueued) return;
    const elsewhere = options.deliveredElsewhere;
    pokeQueued = true;
    const pokeNow = (): void => {
      pokeQueued = false;
      if (elsewhere !== undefined) elsewhere();
      else poke();
    };
    store.writer.submit(() => undefined).then(pokeNow, pokeNow);
  }

  async function forgetPending(repos: TimerRepos, kind: string, targetId: string): Promise<void> {
    const pending = await repos.timers.pending(kind, targetId);
    if (pending !== undefined) backoff.delete(pending.id);
  }

  /** Resolves once no poke is reading and no delivery is in flight. */
  async function settled(): Promise<void> {
    while (poking !== null || inFlight.size > 0) {
      if (poking !== null) await poking;
      if (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
    }
  }

  async function drain(): Promise<number> {
    const before = delivered;
    poke();
    // Each finished delivery pokes again before its promise settles, so newly due timers join this loop.
    await settled();
    return delivered - before;
  }

  return {
    async schedule(repos, spec) {
      if (!spec.kind || !spec.targetId || !Number.isFinite(spec.dueAt)) throw new AppError('INTERNAL', 'A timer needs a kind, a target and a finite due time.');
      const payload = spec.payload ?? {};
      await forgetPending(repos, spec.kind, spec.targetId);
      const id = newId();
      await repos.timers.replace({ id, kind: spec.kind, targetId: spec.targetId, dueAt: spec.dueAt, payload, createdAt: clock.now() });
      pokeAfterCommit();
      return id;
    },
    async cancel(repos, kind, targetId) {
      // Nothing pending: no write (issue 12: no no-op timer writes), and the next due time is what it was.
      const pending = await repos.timers.pending(kind, targetId);
      if (pending === undefined) return false;
      backoff.delete(pending.id);
      const cancelled = await repos.timers.cancel(kind, targetId);
      if (cancelled) pokeAfterCommit();
      return cancelled;
    },
    on(kind, handler) {
      if (handlers.has(kind)) throw new AppError('INTERNAL', `A handler for timer kind "${kind}" is already registered.`);
      handlers.set(kind, handler);
      kinds = [...handlers.keys()];
      poke();
    },
    pendingDueAt: async (kind, targetId, repos = store.repos) => (await repos.timers.pending(kind, targetId))?.dueAt ?? null,
    async start() {
      if (options.deliveredElsewhere !== undefined) return 0;
      if (options.sole === true) await store.writer.submit(async (tx) => void (await tx.repos.timers.releaseClaims()));
      started = true;
      return drain();
    },
    drain,
    async close() {
      closed = true;
      stopListening();
      if (wake !== null) clearTimeout(wake);
      wake = null;
      await settled();
    },
  };
}
