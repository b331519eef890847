// The session event bus: seq'd persistence inside the caller's unit of work, exact replay, chunked fan-out.
import type { GroupCommitWriter, UnitOfWork } from '../../storage/group-commit.js';
import type { SessionEventRow, SessionEventsRepo } from '../../storage/repos/session-events.repo.js';
import type { Clock } from '../clock.js';
import { DeltaCoalescer, realTimers, type DeltaTimers } from './delta-coalescer.js';
import { redactCredentialMaterial } from './redact-payload.js';
import {
  envelope,
  isPersistedType,
  type MessageDelta,
  type PersistedSessionEvent,
  type SessionEvent,
  type SessionEventEnvelope,
  type StreamResetReason,
} from './session-event.js';

/** Receives events in seq order, each exactly once; a batch is what one delivery turn had for this subscriber. */
export type SessionEventListener = (events: readonly SessionEventEnvelope[]) => void;

export interface SessionSubscription {
  readonly sessionId: string;
  /** Every stored event with seq > startSeq is delivered: replayed from the table first, then live. */
  readonly startSeq: number;
  /** Highest stored seq when the subscription began: the state a snapshot read now reflects. */
  readonly latestSeq: number;
  /** Why the requested position was not honoured (a `stream.reset` is delivered first), or null. */
  readonly reset: StreamResetReason | null;
  unsubscribe(): void;
}

export interface SessionEventBusStats {
  sessions: number;
  subscribers: number;
  /** Subscribers waiting for their next delivery turn. */
  queued: number;
  deliveredBatches: number;
  deliveredEvents: number;
  /** Event-loop turns the fan-out has used (each delivers at most `fanoutChunk` batches). */
  drainTurns: number;
}

export interface SessionEventBusOptions {
  repo: SessionEventsRepo;
  writer: GroupCommitWriter;
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
  onError?: (error: unknown, context: { sessionId: string; where: 'listener' | 'delta-flush' }) => void;
}

export interface SessionEventBus {
  /**
   * A unit of work for the caller's transaction: stores the session's buffered deltas, then `event`, each with
   * the next seq. Returns their envelopes (the event last). Hand them to `publish` once the transaction committed.
   */
  append(sessionId: string, event: PersistedSessionEvent): UnitOfWork<SessionEventEnvelope[]>;
  /** After commit: queues committed events for live subscribers; delivery runs from setImmediate, never inline. */
  publish(envelopes: readonly SessionEventEnvelope[]): void;
  /** append in its own group-commit unit, then publish. */
  emit(sessionId: string, event: PersistedSessionEvent): Promise<SessionEventEnvelope>;
  /** Buffers a message.delta chunk; stored and published coalesced (window, size, or the session's next event). */
  pushDelta(sessionId: string, delta: MessageDelta): void;
  /** Stores and publishes every buffered delta now. */
  flushDeltas(): Promise<void>;
  /** `afterSeq` null means "from now"; otherwise the seq the client last saw (Last-Event-ID). */
  subscribe(sessionId: string, afterSeq: number | null, listener: SessionEventListener): SessionSubscription;
  stats(): SessionEventBusStats;
  /** Stops the delta timer and stores what is buffered (shutdown). */
  close(): Promise<void>;
}

interface Channel {
  sessionId: string;
  subs: Set<Sub>;
  /** Highest published seq. */
  head: number;
  /** Contiguous published envelopes ending at `head`; may start anywhere (subscribers behind it read the table). */
  backlog: SessionEventEnvelope[];
}

interface Sub {
  channel: Channel;
  listener: SessionEventListener;
  /** Highest seq delivered (or deliberately skipped by a reset). */
  last: number;
  reset: SessionEventEnvelope | null;
  queued: boolean;
  closed: boolean;
}

export function createSessionEventBus(options: SessionEventBusOptions): SessionEventBus {
  const { repo, writer, clock } = options;
  const fanoutChunk = options.fanoutChunk ?? 1000;
  const batchLimit = options.batchLimit ?? 256;
  const backlogLimit = options.backlogLimit ?? 1024;
  const onError = options.onError ?? (() => undefined);
  const channels = new Map<string, Channel>();
  const stats = { deliveredBatches: 0, deliveredEvents: 0, drainTurns: 0 };
  let queue: Sub[] = [];
  let queueStart = 0;
  let drainScheduled = false;
  const inFlight = new Set<Promise<void>>();

  const deltas = new DeltaCoalescer({
    windowMs: options.deltaWindowMs ?? 50,
    maxChars: options.deltaMaxChars ?? 4096,
    timers: options.timers ?? realTimers,
    onDue: (sessionIds) => sessionIds.forEach(flushSession),
  });

  function insert(sessionId: string, event: PersistedSessionEvent): SessionEventEnvelope {
    if (!isPersistedType(event.type)) throw new TypeError(`"${String(event.type)}" is not a stored session event type`);
    const { type, ...fields } = redactCredentialMaterial(event);
    const ts = clock.now();
    const seq = repo.appendNext(sessionId, ts, type, JSON.stringify(fields));
    return envelope(sessionId, seq, ts, { type, ...fields } as PersistedSessionEvent);
  }

  /** Runs inside a unit of work: taking at run time keeps buffered deltas ahead of whatever the unit stores next. */
  function insertBufferedDeltas(sessionId: string): SessionEventEnvelope[] {
    return deltas.take(sessionId).map((delta) => insert(sessionId, { type: 'message.delta', ...delta }));
  }

  function flushSession(sessionId: string): void {
    const done = writer
      .submit(() => insertBufferedDeltas(sessionId))
      .then(publish, (error: unknown) => onError(error, { sessionId, where: 'delta-flush' }))
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  }

  function rowEnvelope(sessionId: string, row: SessionEventRow): SessionEventEnvelope {
    return envelope(sessionId, row.seq, row.ts, { type: row.type, ...JSON.parse(row.payload) } as SessionEvent);
  }

  function resetEnvelope(sessionId: string, reason: StreamResetReason, requestedSeq: number | null, latestSeq: number): SessionEventEnvelope {
    return envelope(sessionId, latestSeq, clock.now(), { type: 'stream.reset', reason, requestedSeq, latestSeq });
  }

  function enqueue(sub: Sub): void {
    if (sub.queued || sub.closed) return;
    sub.queued = true;
    queue.push(sub);
    if (!drainScheduled) {
      drainScheduled = true;
      // Never deliver inline: publish is often called from a request handler, where uWS corks that one
      // response and writes to every other response cost 4 syscalls each (PERF-NOTES pitfall).
      setImmediate(drain);
    }
  }

  function publish(envelopes: readonly SessionEventEnvelope[]): void {
    const touched = new Set<Channel>();
    for (const env of [...envelopes].sort((a, b) => a.seq - b.seq)) {
      const channel = channels.get(env.sessionId);
      if (!channel || env.seq <= channel.head) continue;
      // A gap means a commit whose publish has not run yet: subscribers read the gap back from the table.
      if (env.seq !== channel.head + 1) channel.backlog = [];
      channel.backlog.push(env);
      channel.head = env.seq;
      touched.add(channel);
    }
    for (const channel of touched) {
      if (channel.backlog.length > backlogLimit) channel.backlog.splice(0, channel.backlog.length - backlogLimit);
      for (const sub of channel.subs) if (sub.last < channel.head) enqueue(sub);
    }
  }

  /** The next batch for one subscriber: a pending reset, then events after `last` from memory or the table. */
  function collect(sub: Sub): SessionEventEnvelope[] {
    const channel = sub.channel;
    const out: SessionEventEnvelope[] = [];
    if (sub.reset) {
      out.push(sub.reset);
      sub.reset = null;
    }
    if (sub.last >= channel.head) return out;
    const backlogStart = channel.backlog.length > 0 ? channel.backlog[0].seq : channel.head + 1;
    if (sub.last + 1 >= backlogStart) {
      const from = sub.last + 1 - backlogStart;
      const slice = channel.backlog.slice(from, from + batchLimit);
      out.push(...slice);
      sub.last = slice[slice.length - 1].seq;
      return out;
    }
    const rows = repo.listRange(channel.sessionId, sub.last, backlogStart - 1, batchLimit);
    if (rows.length === 0 || rows[0].seq !== sub.last + 1) {
      // Pruned under a subscriber that was still catching up: it cannot get these events any more.
      out.push(resetEnvelope(channel.sessionId, 'events_pruned', sub.last, channel.head));
      sub.last = channel.head;
      return out;
    }
    for (const row of rows) out.push(rowEnvelope(channel.sessionId, row));
    sub.last = rows[rows.length - 1].seq;
    return out;
  }

  function drain(): void {
    stats.drainTurns += 1;
    let budget = fanoutChunk;
    while (budget > 0 && queueStart < queue.length) {
      const sub = queue[queueStart++];
      sub.queued = false;
      if (sub.closed) continue;
      const batch = collect(sub);
      if (batch.length > 0) {
        budget -= 1;
        stats.deliveredBatches += 1;
        stats.deliveredEvents += batch.length;
        try {
          sub.listener(batch);
        } catch (error) {
          close(sub);
          onError(error, { sessionId: sub.channel.sessionId, where: 'listener' });
        }
      }
      // Re-queued at the back: one subscriber catching up from the table cannot starve the others.
      if (!sub.closed && (sub.reset !== null || sub.last < sub.channel.head)) enqueue(sub);
    }
    if (queueStart >= queue.length) {
      queue = [];
      queueStart = 0;
      drainScheduled = false;
      return;
    }
    if (queueStart > 4096) {
      queue = queue.slice(queueStart);
      queueStart = 0;
    }
    setImmediate(drain);
  }

  function close(sub: Sub): void {
    if (sub.closed) return;
    sub.closed = true;
    const channel = sub.channel;
    channel.subs.delete(sub);
    if (channel.subs.size === 0 && channels.get(channel.sessionId) === channel) channels.delete(channel.sessionId);
  }

  function append(sessionId: string, event: PersistedSessionEvent): UnitOfWork<SessionEventEnvelope[]> {
    return () => {
      const stored = insertBufferedDeltas(sessionId);
      stored.push(insert(sessionId, event));
      return stored;
    };
  }

  async function flushDeltas(): Promise<void> {
    deltas.sessions().forEach(flushSession);
    await Promise.all([...inFlight]);
  }

  return {
    append,
    publish,

    async emit(sessionId, event) {
      const stored = await writer.submit(append(sessionId, event));
      publish(stored);
      return stored[stored.length - 1];
    },

    pushDelta(sessionId, delta) {
      deltas.push(sessionId, delta);
    },

    flushDeltas,

    subscribe(sessionId, afterSeq, listener) {
      const { minSeq, maxSeq } = repo.bounds(sessionId);
      let channel = channels.get(sessionId);
      if (!channel) {
        channel = { sessionId, subs: new Set(), head: maxSeq, backlog: [] };
        channels.set(sessionId, channel);
      }
      let reset: StreamResetReason | null = null;
      if (afterSeq !== null) {
        if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) reset = 'last_event_id_invalid';
        else if (afterSeq > maxSeq) reset = 'last_event_id_ahead';
        else if (afterSeq < minSeq - 1) reset = 'events_pruned';
      }
      const startSeq = afterSeq === null || reset !== null ? maxSeq : afterSeq;
      const sub: Sub = { channel, listener, last: startSeq, reset: null, queued: false, closed: false };
      if (reset) {
        const requested = afterSeq !== null && Number.isSafeInteger(afterSeq) ? afterSeq : null;
        sub.reset = resetEnvelope(sessionId, reset, requested, maxSeq);
      }
      channel.subs.add(sub);
      if (sub.reset || sub.last < channel.head) enqueue(sub);
      return { sessionId, startSeq, latestSeq: maxSeq, reset, unsubscribe: () => close(sub) };
    },

    stats() {
      let subscribers = 0;
      for (const channel of channels.values()) subscribers += channel.subs.size;
      return { sessions: channels.size, subscribers, queued: queue.length - queueStart, ...stats };
    },

    async close() {
      deltas.cancelTimer();
      await flushDeltas();
    },
  };
}
