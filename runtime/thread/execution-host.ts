// The execution worker thread's side of the link: runs what main posts, reports commits, queue counts and answers.
/*
 * Signals: every event the worker's units commit reaches its bus's observers after the commit; the highest seq per
 * session is posted once per loop turn, and main's session feed reads the rows itself. Admission: the worker counts
 * nothing on its own; what its dispatcher starts (and what its schedule ticks enqueue) is posted to main, whose
 * admission answers the 429/503. Decision "Execution in a worker thread (issue 12 item 2)".
 */
import type { SessionEventBus } from '../events/index.js';
import type { Scheduler } from '../scheduler/index.js';
import type { SessionDispatcher } from '../turns/dispatcher.js';
import type { Admission, AdmissionStats } from '../execution/admission.js';
import type { Materializer } from '../execution/materializer.js';
import { serializeError, type ToMain, type ToWorker, type WorkerMethod } from './protocol.js';

export interface ExecutionHostDeps {
  post(message: ToMain): void;
  dispatcher: SessionDispatcher;
  /** Writes the sessions main's accepts posted, then dispatches them here. */
  materializer: Pick<Materializer, 'accepted'>;
  bus: Pick<SessionEventBus, 'observe'>;
  scheduler: Pick<Scheduler, 'drain'>;
  /** The worker's read caches: main wrote a cached table. */
  invalidateCaches(): void;
  /** The forwarded calls: cancel (kind, sessionId, executionId), decide (session, approval, deciderId, request), metrics. */
  methods: Record<Exclude<WorkerMethod, 'abort' | 'idle'>, (...args: never[]) => Promise<unknown>>;
  onError(error: unknown, where: string): void;
}

export interface ExecutionHost {
  receive(message: ToWorker): void;
  /** Stops posting signals (shutdown); posts what is pending first. */
  close(): void;
}

/** The worker's Admission: counts go to main (posted once per loop turn); it refuses nothing itself. */
export function createForwardingAdmission(post: (message: ToMain) => void): Admission {
  const counts = { started: 0, enqueued: 0, released: 0, bound: null as number | null };
  let startedTotal = 0;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    post({ t: 'admission', ...counts });
    Object.assign(counts, { started: 0, enqueued: 0, released: 0, bound: null });
  };
  const add = (key: 'started' | 'enqueued' | 'released', n: number): void => {
    counts[key] += n;
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return {
    admit: (n) => add('enqueued', n),
    enqueued: (n) => add('enqueued', n),
    release: (n) => add('released', n),
    started(n) {
      startedTotal += n;
      add('started', n);
    },
    bound(total) {
      counts.bound = total;
      add('started', 0);
    },
    stats: (): AdmissionStats => ({ queued: 0, ratePerSecond: 0, limit: 0, limitSeconds: 0, refused: 0, startedTotal }),
  };
}

export function createExecutionHost(deps: ExecutionHostDeps): ExecutionHost {
  let marks = new Map<string, number>();
  let written: string[] = [];
  let closed = false;
  const flushWritten = (): void => {
    const sourceIds = written;
    written = [];
    deps.post({ t: 'materialized', sourceIds });
  };
  const markWritten = (sourceId: string): void => {
    if (written.length === 0) setImmediate(flushWritten);
    written.push(sourceId);
  };
  const flushSignals = (): void => {
    if (marks.size === 0) return;
    const batch = [...marks];
    marks = new Map();
    deps.post({ t: 'signals', marks: batch });
  };
  const stopObserving = deps.bus.observe((envelopes) => {
    if (closed) return;
    if (marks.size === 0) setImmediate(flushSignals);
    for (const envelope of envelopes) if ((marks.get(envelope.sessionId) ?? 0) < envelope.seq) marks.set(envelope.sessionId, envelope.seq);
  });

  async function run(method: WorkerMethod, args: readonly unknown[]): Promise<unknown> {
    if (method === 'abort') return deps.dispatcher.abort(args[0] as string);
    if (method === 'idle') return deps.dispatcher.idle(args[0] as string | undefined);
    return (deps.methods[method] as (...a: unknown[]) => Promise<unknown>)(...args);
  }

  return {
    receive(message) {
      switch (message.t) {
        case 'dispatch':
          for (const sessionId of message.sessionIds) deps.dispatcher.dispatch(sessionId);
          return;
        case 'materialize':
          // `accepted` resolves once the source's unit is done, written or (logged) left pending for the next boot.
          for (const source of message.sources) void deps.materializer.accepted(source).then(() => markWritten(source.id));
          return;
        case 'call':
          run(message.method, message.args).then(
            (value) => deps.post({ t: 'reply', id: message.id, ok: true, value }),
            (error: unknown) => deps.post({ t: 'reply', id: message.id, ok: false, error: serializeError(error) }),
          );
          return;
        case 'invalidate':
          deps.invalidateCaches();
          return;
        case 'poke':
          deps.scheduler.drain().catch((error: unknown) => deps.onError(error, 'scheduler'));
          return;
        default:
          return;
      }
    },
    close() {
      flushSignals();
      closed = true;
      stopObserving();
    },
  };
}
