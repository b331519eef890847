// Runs each session's executions one at a time, in order, on the engine registered for the automation's kind.
/*
 * Queue policy (docs/decisions.md "Messages sent while a turn runs"): executions of one session run strictly in
 * position order. A message appended while a turn runs or waits for approval is queued behind it and starts when
 * every earlier execution has settled. The queue lives in SQLite (executions.status), so `dispatch` only says
 * "look at this session again": it is idempotent, survives restarts (boot calls `recover`), and needs no payload.
 * With N nodes on one database a pump first claims its session (storage/port/ownership.ts), so one node at a time
 * runs it; a session held by another node is left to that node, and a dead node's sessions to the takeover scan.
 */
import { setMaxListeners } from 'node:events';
import type { Storage } from '../../storage/port/storage.js';
import { soleOwnership, type SessionClaim, type SessionOwnership } from '../../storage/port/ownership.js';
import type { Admission } from '../execution/admission.js';
import type { Pacer } from '../execution/pacer.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { EngineKind, QueuedExecution, SessionEngine } from './engine.js';
import { startTakeoverScan } from './takeover-scan.js';

export interface SessionDispatcher {
  /** Registers the engine for one automation kind (`agent` by the turns runtime, `flow` by the flow runtime). */
  registerEngine(kind: EngineKind, engine: SessionEngine): void;
  engineFor(kind: EngineKind): SessionEngine | undefined;
  /** After commit: runs the session's oldest unsettled execution, then the next, until one parks or none is left. Returns at once. */
  dispatch(sessionId: string): void;
  /** Resolves when nothing accepted is still to be written and the session's queue (or every queue) has nothing running. */
  idle(sessionId?: string): Promise<void>;
  /** Boot: dispatches every session with queued, running or resume-queued executions; returns how many. */
  recover(): Promise<number>;
  /**
   * Aborts the in-flight run of one execution (its model or tool call sees the signal) and resolves once the engine
   * returned; false when it is not running here. Call it after the cancel committed: the engine records nothing.
   */
  abort(executionId: string): Promise<boolean>;
  /** Aborts running executions (left as they are for the next boot) and waits for them to stop. */
  stop(): Promise<void>;
}

export interface DispatcherDeps {
  store: Pick<Storage, 'repos'>;
  logger: Pick<Logger, 'error' | 'warn'>;
  /** Executions running at once across all sessions (default 256); the rest wait their turn, queued in SQLite. */
  maxConcurrentRuns?: number;
  /** Told when a queued execution is picked up, so the accept side knows the queue's depth. */
  admission?: Pick<Admission, 'started' | 'enqueued' | 'bound'>;
  /** Yields to I/O between executions once a time slice is used up (health and reads stay fast under load). */
  pacer?: Pacer;
  /** Accepted work not yet handed over (the materializer): `idle()` waits for it too. */
  intake?: { idle(): Promise<void> };
  /**
   * Which node runs a session (storage/port/ownership.ts); default: this process runs every session. With N nodes a
   * pump claims its session first, runs under the claim and releases it when the queue parks or empties.
   */
  ownership?: SessionOwnership;
}

/** A counting semaphore: a burst of thousands of opened sessions runs a bounded number of turns at a time. */
function createSlots(size: number) {
  let free = size;
  const waiting: Array<() => void> = [];
  return {
    async acquire(): Promise<void> {
      if (free > 0) {
        free -= 1;
        return;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    },
  };
}

export function createSessionDispatcher(deps: DispatcherDeps): SessionDispatcher {
  const { repos } = deps.store;
  const ownership = deps.ownership ?? soleOwnership;
  const engines = new Map<EngineKind, SessionEngine>();
  /** Sessions whose pump is running; `again` is set by a dispatch that arrives meanwhile. */
  const pumps = new Map<string, { again: boolean; done: Promise<void> }>();
  const shutdown = new AbortController();
  // Each running execution listens on it (removed when its run ends): up to the slots' count at once, not a leak.
  setMaxListeners(0, shutdown.signal);
  const slots = createSlots(deps.maxConcurrentRuns ?? 256);
  /** One controller per execution being run, so a cancel aborts only that run (the engine sees it as a stop). */
  const inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();

  async function next(sessionId: string): Promise<{ execution: QueuedExecution; engine: SessionEngine } | null> {
    const row = await repos.executions.firstUnsettled(sessionId);
    // A suspended execution blocks the queue until its approval is decided (which dispatches again).
    if (row === undefined || row.status === 'suspended') return null;
    const session = await repos.sessions.session(sessionId);
    const automation = session && (await repos.automations.automation(session.automationId));
    if (session === undefined || automation === undefined) return null;
    const engine = engines.get(automation.kind);
    if (engine === undefined) {
      deps.logger.warn({ sessionId, kind: automation.kind }, 'no engine registered for this automation kind; execution left queued');
      return null;
    }
    const execution: QueuedExecution = {
      executionId: row.id,
      sessionId,
      orgId: session.orgId,
      automationId: automation.id,
      status: row.status,
    };
    return { execution, engine };
  }

  /** Runs the session's queue while this node owns it; another node's live claim means that node drains it. */
  async function owned(sessionId: string, state: { again: boolean }): Promise<void> {
    // A claim that could not be asked (the database unreachable) leaves the work durable: the takeover scan retries.
    const claim = await ownership.claim(sessionId).catch((error: unknown) => {
      deps.logger.warn({ sessionId, err: error instanceof Error ? error.message : String(error) }, 'session claim failed');
      return null;
    });
    if (claim === null) return;
    let drained = false;
    try {
      drained = await pump(sessionId, state, claim);
    } finally {
      await claim.release();
    }
    // Work accepted on another node while this one held the claim found it taken: look again now that it is free
    // (only after the queue ran dry: a pump that stopped on a stuck execution waits for the next dispatch).
    if (ownership !== soleOwnership && drained && !shutdown.signal.aborted && (await next(sessionId)) !== null) {
      setImmediate(() => dispatch(sessionId));
    }
  }

  /** True when it stopped because nothing runnable was left (empty or parked on an approval). */
  async function pump(sessionId: string, state: { again: boolean }, claim: SessionClaim): Promise<boolean> {
    for (;;) {
      if (claim.lost.aborted) return false;
      // Paced before its reads: a materializer batch dispatches dozens of sessions into one loop turn.
      await deps.pacer?.pace();
      state.again = false;
      if (shutdown.signal.aborted) return false;
      const picked = await next(sessionId);
      if (picked === null) {
        if (state.again) continue;
        return true;
      }
      const { execution, engine } = picked;
      await slots.acquire();
      try {
        // Again once a slot is free: the run starts in a slice of its own.
        await deps.pacer?.pace();
        if (shutdown.signal.aborted) return false;
        if (execution.status === 'queued') deps.admission?.started(1);
        // One controller per run, following shutdown through a listener removed after: AbortSignal.any on the
        // process-long shutdown signal would keep every run's signal alive on Node 20.
        const controller = new AbortController();
        const stop = () => controller.abort();
        shutdown.signal.addEventListener('abort', stop);
        claim.lost.addEventListener('abort', stop);
        const done = claim.run(() => engine.run(execution, controller.signal)).finally(() => {
          shutdown.signal.removeEventListener('abort', stop);
          claim.lost.removeEventListener('abort', stop);
        });
        inFlight.set(execution.executionId, { controller, done: done.then(() => undefined, () => undefined) });
        await done;
      } catch (error) {
        // A run cut short by a cancel may fail its next step (the machine refuses it): nothing to report then.
        const cancelled = inFlight.get(execution.executionId)?.controller.signal.aborted === true || (await repos.executions.execution(execution.executionId))?.settledAt != null;
        if (!cancelled) {
          deps.logger.error({ sessionId, executionId: execution.executionId, err: error instanceof Error ? error.message : String(error) }, 'engine run failed');
        }
      } finally {
        inFlight.delete(execution.executionId);
        slots.release();
      }
      if (shutdown.signal.aborted) return false;
      // An engine that left the execution where it found it would spin: wait for the next dispatch instead.
      if ((await repos.executions.execution(execution.executionId))?.status === execution.status && !state.again) return false;
    }
  }

  /** Stops the takeover scan (N nodes), started by recover(); resolves once a scan in flight ended. */
  let stopTakeover: (() => Promise<void>) | undefined;

  function dispatch(sessionId: string): void {
    if (shutdown.signal.aborted) return;
    const running = pumps.get(sessionId);
    if (running !== undefined) {
      running.again = true;
      return;
    }
    const state = { again: false, done: Promise.resolve() };
    // Started on the next turn of the event loop: the HTTP answer that dispatched goes out before engine work.
    // A pump that fails (the database unreachable, the pool closing) leaves its work durable for the next dispatch,
    // the takeover scan or the next boot: logged here, never an unhandled rejection, and idle()/stop() still resolve.
    state.done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => owned(sessionId, state))
      .catch((error: unknown) => deps.logger.warn({ sessionId, err: error instanceof Error ? error.message : String(error) }, 'session pump stopped on an error; its work stays queued'))
      .finally(() => {
        if (pumps.get(sessionId) === state) pumps.delete(sessionId);
      });
    pumps.set(sessionId, state);
  }

  return {
    registerEngine(kind, engine) {
      if (engines.has(kind)) throw new AppError('INTERNAL', `An engine for "${kind}" is already registered.`);
      engines.set(kind, engine);
    },
    engineFor: (kind) => engines.get(kind),
    dispatch,
    async idle(sessionId) {
      for (;;) {
        await deps.intake?.idle();
        const waiting = sessionId === undefined ? [...pumps.values()] : [pumps.get(sessionId)].filter((p) => p !== undefined);
        if (waiting.length === 0) return;
        await Promise.all(waiting.map((p) => p.done));
      }
    },
    async abort(executionId) {
      const run = inFlight.get(executionId);
      if (run === undefined) return false;
      run.controller.abort();
      await run.done;
      return true;
    },
    async recover() {
      // One process: every queued execution is this node's to start. N nodes: a booting node has accepted none of it,
      // and the admission counts what this node accepted (work it takes over only lowers its count, never below 0).
      if (ownership === soleOwnership) deps.admission?.enqueued(await repos.executions.countQueued());
      const sessions = await repos.executions.sessionsWithRunnableWork();
      for (const sessionId of sessions) dispatch(sessionId);
      // Each scan also bounds this node's count by the database's total: work it accepted that another node started.
      const boundAdmission = async () => deps.admission?.bound(await repos.executions.countQueued());
      stopTakeover ??= startTakeoverScan(ownership, dispatch, deps.logger, boundAdmission);
      return sessions.length;
    },
    async stop() {
      shutdown.abort();
      await stopTakeover?.();
      // A scan's dispatches after the abort are refused, so the pumps below are the last ones.
      await Promise.all([...pumps.values()].map((p) => p.done));
    },
  };
}
