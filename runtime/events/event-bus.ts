// The session event bus: seq'd persistence inside the caller's unit of work, delta coalescing, fan-out from the unit's outbox.
import type { SessionSignals } from '../../storage/port/session-signals.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
import { StaleLeaseError } from '../../storage/port/unit-errors.js';
import type { Clock } from '../clock.js';
import { DeltaCoalescer, realTimers, type DeltaTimers } from './delta-coalescer.js';
import { redactCredentialMaterial } from './redact-payload.js';
import { envelope, isPersistedType, type MessageDelta, type PersistedSessionEvent, type SessionEventEnvelope } from './session-event.js';
import { createSessionFanout, type FanoutStats, type SessionEventListener, type SessionSubscription } from './session-fanout.js';
import { createSessionFeed, type SessionFeed, type SessionFeedStats } from './session-feed.js';

export type { SessionEventListener, SessionSubscription } from './session-fanout.js';
/** `feed` is null where no other node writes (no signals: SQLite). */
export type SessionEventBusStats = FanoutStats & { feed: SessionFeedStats | null };

/** What appending needs of the caller's unit: its session-events repository and its outbox. */
export type EventUnit = UnitContext<Pick<PortRepositories, 'sessionEvents'>>;

export interface SessionEventBusOptions {
  repo: PortRepositories['sessionEvents'];
  writer: Storage['writer'];
  clock: Clock;
  /** Listener calls (SSE writes) per event-loop turn; PERF-NOTES: 1-2k keeps the loop responsive. Default 1000. */
  fanoutChunk?: number;
  /** Most events handed to one listener call. Default 256. */
  batchLimit?: number;
  /** Events kept in memory per watched session for live delivery; older ones are read back from the table. Default 1024. */
  backlogLimit?: number;
  /** message.delta coalescing window (docs/events.md). Default 50 ms. */
  deltaWindowMs?: number;
  /** Buffered delta characters that force an immediate flush. Default 4096. */
  deltaMaxChars?: number;
  timers?: DeltaTimers;
  /**
   * Other nodes' commits (Storage.signals, PostgreSQL): with it, subscribers here also get events committed elsewhere,
   * read from the table by the feed (runtime/events/session-feed.ts) once `start()` listens.
   */
  signals?: SessionSignals;
  /** Feed tuning: rows per read (default 256), reads at once (default 8), wait after a failed read (default 1 s). */
  feed?: { readLimit?: number; maxConcurrentReads?: number; retryMs?: number };
  onError?: (error: unknown, context: { sessionId: string; where: 'listener' | 'delta-flush' | 'feed' }) => void;
}

export interface SessionEventBus {
  /**
   * Inside the caller's unit of work (`tx`): stores the session's buffered deltas, then `event`, each with the next
   * seq, and puts them in the unit's outbox, published once it commits. Returns their envelopes (the event last).
   */
  append(tx: EventUnit, sessionId: string, event: PersistedSessionEvent): Promise<SessionEventEnvelope[]>;
  /**
   * Queues committed events for live subscribers and observers (delivery runs from setImmediate, never inline).
   * The unit of work's outbox calls it; call sites never need to. Already published seqs are skipped by the fan-out.
   */
  publish(envelopes: readonly SessionEventEnvelope[]): void;
  /** append in its own group-commit unit (published at its commit). */
  emit(sessionId: string, event: PersistedSessionEvent): Promise<SessionEventEnvelope>;
  /** Buffers a message.delta chunk; stored and published coalesced (window, size, or the session's next event). */
  pushDelta(sessionId: string, delta: MessageDelta): void;
  /** Stores and publishes every buffered delta now. */
  flushDeltas(): Promise<void>;
  /** `afterSeq` null means "from now"; otherwise the seq the client last saw (Last-Event-ID). */
  subscribe(sessionId: string, afterSeq: number | null, listener: SessionEventListener): Promise<SessionSubscription>;
  /**
   * Every committed event of every session, as published (after its commit), for runtime observers such as
   * outbound webhooks watching executions settle. Called synchronously from publish: keep it cheap, never throw.
   */
  observe(observer: (envelopes: readonly SessionEventEnvelope[]) => void): () => void;
  stats(): SessionEventBusStats;
  /** Starts hearing other nodes' commits (with `signals`; a no-op without). Rejects when their source is unreachable. */
  start(): Promise<void>;
  /** Stops the delta timer, stores what is buffered, and stops hearing other nodes (shutdown). */
  close(): Promise<void>;
}

export function createSessionEventBus(options: SessionEventBusOptions): SessionEventBus {
  const { repo, writer, clock } = options;
  const onError = options.onError ?? (() => undefined);
  let feed: SessionFeed | null = null;
  const fanout = createSessionFanout({
    repo,
    clock,
    fanoutChunk: options.fanoutChunk ?? 1000,
    batchLimit: options.batchLimit ?? 256,
    backlogLimit: options.backlogLimit ?? 1024,
    onListenerError: (error, sessionId) => onError(error, { sessionId, where: 'listener' }),
    onWatch: (sessionId) => feed?.watch(sessionId),
  });
  if (options.signals) {
    // Feeds the fan-out only, never the observers: those act once per commit, on the node that committed it.
    feed = createSessionFeed({
      signals: options.signals,
      repo,
      fanout,
      readLimit: options.feed?.readLimit ?? 256,
      maxConcurrentReads: options.feed?.maxConcurrentReads ?? 8,
      retryMs: options.feed?.retryMs ?? 1000,
      onError: (error, sessionId) => onError(error, { sessionId: sessionId ?? '', where: 'feed' }),
    });
  }
  const observers = new Set<(envelopes: readonly SessionEventEnvelope[]) => void>();
  const publish = (envelopes: readonly SessionEventEnvelope[]): void => {
    fanout.publish(envelopes);
    for (const observer of observers) {
      try {
        observer(envelopes);
      } catch (error) {
        onError(error, { sessionId: envelopes[0]?.sessionId ?? '', where: 'listener' });
      }
    }
  };
  const inFlight = new Set<Promise<void>>();

  const deltas = new DeltaCoalescer({
    windowMs: options.deltaWindowMs ?? 50,
    maxChars: options.deltaMaxChars ?? 4096,
    timers: options.timers ?? realTimers,
    onDue: (sessionIds) => sessionIds.forEach(flushSession),
  });

  async function insert(tx: EventUnit, sessionId: string, event: PersistedSessionEvent): Promise<SessionEventEnvelope> {
    if (!isPersistedType(event.type)) throw new TypeError(`"${String(event.type)}" is not a stored session event type`);
    const { type, ...fields } = redactCredentialMaterial(event);
    const ts = clock.now();
    const seq = await tx.repos.sessionEvents.appendNext(sessionId, ts, type, JSON.stringify(fields));
    return envelope(sessionId, seq, ts, { type, ...fields } as PersistedSessionEvent);
  }

  /** Runs inside a unit of work: taking at run time keeps buffered deltas ahead of whatever the unit stores next. */
  async function insertBufferedDeltas(tx: EventUnit, sessionId: string): Promise<SessionEventEnvelope[]> {
    const stored: SessionEventEnvelope[] = [];
    // One at a time: each takes the session's next seq, in order.
    for (const delta of deltas.take(sessionId)) stored.push(await insert(tx, sessionId, { type: 'message.delta', ...delta }));
    return stored;
  }

  /** Puts stored envelopes in the running unit's outbox: subscribers see them only once that unit committed. */
  function publishAtCommit(tx: EventUnit, stored: SessionEventEnvelope[]): SessionEventEnvelope[] {
    if (stored.length > 0) tx.afterCommit(() => publish(stored));
    return stored;
  }

  function flushSession(sessionId: string): void {
    const done = writer
      .submit(async (tx) => void publishAtCommit(tx, await insertBufferedDeltas(tx, sessionId)))
      .catch((error: unknown) => {
        // Refused as stale with nothing buffered: the owner's last append took these deltas before it released the
        // session (this flush only queued behind it), so nothing was lost.
        if (error instanceof StaleLeaseError && !deltas.sessions().includes(sessionId)) return;
        onError(error, { sessionId, where: 'delta-flush' });
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  }

  async function append(tx: EventUnit, sessionId: string, event: PersistedSessionEvent): Promise<SessionEventEnvelope[]> {
    const stored = await insertBufferedDeltas(tx, sessionId);
    stored.push(await insert(tx, sessionId, event));
    return publishAtCommit(tx, stored);
  }

  async function flushDeltas(): Promise<void> {
    deltas.sessions().forEach(flushSession);
    await Promise.all([...inFlight]);
  }

  return {
    append,
    publish,

    async emit(sessionId, event) {
      const stored = await writer.submit((tx) => append(tx, sessionId, event));
      return stored[stored.length - 1];
    },

    pushDelta(sessionId, delta) {
      deltas.push(sessionId, delta);
    },

    flushDeltas,

    subscribe: fanout.subscribe,
    observe(observer) {
      observers.add(observer);
      return () => observers.delete(observer);
    },
    stats: () => ({ ...fanout.stats(), feed: feed?.stats() ?? null }),

    async start() {
      await feed?.start();
    },

    async close() {
      deltas.cancelTimer();
      await flushDeltas();
      await feed?.close();
    },
  };
}
