// The accept side's view of the execution worker thread: a remote dispatcher, session signals, forwarded calls.
/*
 * The main thread runs no turn, flow run or timer: `dispatch` posts session ids to the worker (batched per loop
 * turn), cancels and approval decisions run there (the worker is the one turn mover: its registry alone holds the
 * turns' actors), and the worker's commits come back as signals the session feed reads from main's own connection.
 * The transport (a Worker that may be restarted) is the composition root's (http/execution-thread.ts).
 * Decision "Execution in a worker thread (issue 12 item 2)".
 */
import type { SessionSignalHandlers, SessionSignals } from '../../storage/port/session-signals.js';
import { AppError } from '../errors.js';
import type { EngineKind, SessionEngine } from '../turns/engine.js';
import type { SessionDispatcher } from '../turns/dispatcher.js';
import type { Admission } from '../execution/admission.js';
import { deserializeError, type ToMain, type ToWorker, type WorkerMethod } from './protocol.js';
import { createRemoteMaterializer, type RemoteMaterializer } from './remote-materializer.js';

export interface ExecutionClientDeps {
  /** Posts to the current worker (messages posted while it restarts wait for the new one). */
  post(message: ToWorker): void;
  /** The main thread's queue bound: the worker reports what it starts. */
  admission: Pick<Admission, 'started' | 'enqueued' | 'release' | 'bound'>;
  /** Drops main's read caches (the worker wrote a cached table). */
  invalidateCaches(): void;
}

export interface ExecutionClient {
  readonly dispatcher: SessionDispatcher;
  /** This side's materializer: accepts are posted to the worker, which writes their sessions and runs them. */
  readonly materializer: RemoteMaterializer;
  /** Committed session events of the worker, as the event bus's cross-writer signal source. */
  readonly signals: SessionSignals;
  /** Runs `method` in the worker; rejects with its error (AppErrors keep code and status). */
  call<T>(method: WorkerMethod, ...args: unknown[]): Promise<T>;
  /** A message from the worker. */
  receive(message: ToMain): void;
  /** The worker died: pending calls fail (503), and streams re-read what they watch once a new one runs. */
  lost(): void;
  /** A new worker finished recovery. */
  restarted(): void;
  /** False from a worker's death until its successor recovered (readiness reports it). */
  readonly running: boolean;
}

const workerGone = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The execution thread restarted before it answered; retry.', undefined, { retryAfterSeconds: 1 });

export function createExecutionClient(deps: ExecutionClientDeps): ExecutionClient {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  const signalHandlers = new Set<SessionSignalHandlers>();
  const engines = new Map<EngineKind, SessionEngine>();
  let toDispatch = new Set<string>();
  let stopped = false;
  let running = true;
  const materializer = createRemoteMaterializer(deps.post);

  function call<T>(method: WorkerMethod, ...args: unknown[]): Promise<T> {
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      deps.post({ t: 'call', id, method, args });
    });
  }

  /** Dispatches of one loop turn go in one message, after the commits that made them. */
  function flushDispatches(): void {
    const sessionIds = [...toDispatch];
    toDispatch = new Set();
    if (sessionIds.length > 0) deps.post({ t: 'dispatch', sessionIds });
  }

  const dispatcher: SessionDispatcher = {
    // Engines are registered here as everywhere (the runtime is composed the same way); only the worker's run.
    registerEngine(kind, engine) {
      engines.set(kind, engine);
    },
    engineFor: (kind) => engines.get(kind),
    dispatch(sessionId) {
      if (stopped) return;
      if (toDispatch.size === 0) setImmediate(flushDispatches);
      toDispatch.add(sessionId);
    },
    async idle(sessionId) {
      await materializer.idle();
      flushDispatches();
      await call('idle', sessionId);
    },
    // The worker recovers at its own boot (and at every restart): nothing to resume on this side.
    recover: async () => 0,
    abort: (executionId) => call<boolean>('abort', executionId),
    async stop() {
      flushDispatches();
      stopped = true;
    },
  };

  return {
    dispatcher,
    materializer,
    signals: {
      async listen(handlers) {
        signalHandlers.add(handlers);
        return { close: async () => void signalHandlers.delete(handlers) };
      },
    },
    call,
    receive(message) {
      switch (message.t) {
        case 'signals':
          for (const handlers of signalHandlers) for (const [sessionId, seq] of message.marks) handlers.onSignal({ sessionId, seq });
          return;
        case 'admission':
          if (message.started > 0) deps.admission.started(message.started);
          if (message.enqueued > 0) deps.admission.enqueued(message.enqueued);
          if (message.released > 0) deps.admission.release(message.released);
          if (message.bound !== null) deps.admission.bound(message.bound);
          return;
        case 'reply': {
          const waiting = pending.get(message.id);
          pending.delete(message.id);
          if (message.ok) waiting?.resolve(message.value);
          else waiting?.reject(deserializeError(message.error));
          return;
        }
        case 'invalidate':
          deps.invalidateCaches();
          return;
        case 'materialized':
          materializer.written(message.sourceIds);
          return;
        default:
          return;
      }
    },
    get running() {
      return running;
    },
    lost() {
      running = false;
      for (const waiting of pending.values()) waiting.reject(workerGone());
      pending.clear();
    },
    restarted() {
      running = true;
      materializer.restarted();
      // Signals sent by the dead worker after its last message never came: every watched stream reads again.
      for (const handlers of signalHandlers) handlers.onResync();
    },
  };
}
