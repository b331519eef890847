// Live delivery of stored session events: per-session channels, replay from the table, chunked fan-out.
import type { PortRepositories } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import { envelope, rowEnvelope, type SessionEventEnvelope, type StreamResetReason } from './session-event.js';

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

export interface FanoutStats {
  /** Sessions with at least one subscriber. */
  sessions: number;
  subscribers: number;
  /** Subscribers waiting for their next delivery turn. */
  queued: number;
  /** Subscribers whose catch-up read of the table is in flight (out of the queue until it answers). */
  reading: number;
  deliveredBatches: number;
  deliveredEvents: number;
  /** Event-loop turns the fan-out has used (each delivers at most `fanoutChunk` batches). */
  drainTurns: number;
}

export interface SessionFanoutOptions {
  repo: Pick<PortRepositories['sessionEvents'], 'bounds' | 'listRange'>;
  clock: Clock;
  fanoutChunk: number;
  batchLimit: number;
  backlogLimit: number;
  onListenerError(error: unknown, sessionId: string): void;
  /** A session got its first subscriber here (the cross-node feed reads what committed since its head). */
  onWatch?(sessionId: string): void;
}

export interface SessionFanout {
  /** Queues committed events for delivery; never delivers inline. */
  publish(envelopes: readonly SessionEventEnvelope[]): void;
  /** `afterSeq` null means "from now"; otherwise the seq the client last saw (Last-Event-ID). */
  subscribe(sessionId: string, afterSeq: number | null, listener: SessionEventListener): Promise<SessionSubscription>;
  stats(): FanoutStats;
  /** Highest seq published to a session's subscribers here; undefined when nobody here watches it. */
  headOf(sessionId: string): number | undefined;
  /** Sessions with at least one subscriber here. */
  watchedSessions(): string[];
}

interface Channel {
  sessionId: string;
  subs: Set<Sub>;
  /** Highest published seq. */
  head: number;
  /** Contiguous published envelopes ending at `head`; may start anywhere (subscribers behind it read the table). */
  backlog: SessionEventEnvelope[];
}

/** One subscriber; a class so that 10k of them share methods instead of each holding closures. */
class Sub implements SessionSubscription {
  /** Highest seq delivered (or deliberately skipped by a reset). */
  last: number;
  /** A stream.reset waiting to be delivered first. */
  pendingReset: SessionEventEnvelope | null = null;
  queued = false;
  closed = false;

  constructor(
    readonly channel: Channel,
    readonly listener: SessionEventListener,
    readonly startSeq: number,
    readonly latestSeq: number,
    readonly reset: StreamResetReason | null,
    private readonly detach: (sub: Sub) => void,
  ) {
    this.last = startSeq;
  }

  get sessionId(): string {
    return this.channel.sessionId;
  }

  unsubscribe(): void {
    this.detach(this);
  }
}

export function createSessionFanout(options: SessionFanoutOptions): SessionFanout {
  const { repo, clock, fanoutChunk, batchLimit, backlogLimit } = options;
  const channels = new Map<string, Channel>();
  const stats = { deliveredBatches: 0, deliveredEvents: 0, drainTurns: 0, reading: 0 };
  let queue: Sub[] = [];
  let queueStart = 0;
  let drainScheduled = false;

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

  const backlogStartOf = (channel: Channel): number => (channel.backlog.length > 0 ? channel.backlog[0].seq : channel.head + 1);

  /** Behind the in-memory backlog: its next batch comes from the table. */
  const readsTable = (sub: Sub): boolean => sub.pendingReset === null && sub.last < sub.channel.head && sub.last + 1 < backlogStartOf(sub.channel);

  /** The next batch for one subscriber from memory: a pending reset, then events after `last` in the backlog. */
  function collect(sub: Sub): SessionEventEnvelope[] {
    const channel = sub.channel;
    const out: SessionEventEnvelope[] = [];
    if (sub.pendingReset) {
      out.push(sub.pendingReset);
      sub.pendingReset = null;
    }
    if (sub.last >= channel.head) return out;
    const backlogStart = backlogStartOf(channel);
    if (sub.last + 1 >= backlogStart) {
      const from = sub.last + 1 - backlogStart;
      const slice = channel.backlog.slice(from, from + batchLimit);
      out.push(...slice);
      sub.last = slice[slice.length - 1].seq;
    }
    return out;
  }

  /** The next batch for a subscriber behind the backlog, read back from the table. */
  async function collectFromTable(sub: Sub): Promise<SessionEventEnvelope[]> {
    const channel = sub.channel;
    const out: SessionEventEnvelope[] = [];
    const rows = await repo.listRange(channel.sessionId, sub.last, backlogStartOf(channel) - 1, batchLimit);
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
    void drainTurn();
  }

  async function drainTurn(): Promise<void> {
    stats.drainTurns += 1;
    let budget = fanoutChunk;
    while (budget > 0 && queueStart < queue.length) {
      const sub = queue[queueStart++];
      sub.queued = false;
      if (sub.closed) continue;
      // Only a subscriber catching up from the table waits for storage; live ones are served from memory.
      let batch: SessionEventEnvelope[];
      try {
        if (readsTable(sub)) {
          stats.reading += 1;
          batch = await collectFromTable(sub).finally(() => (stats.reading -= 1));
        } else batch = collect(sub);
      } catch (error) {
        close(sub);
        options.onListenerError(error, sub.channel.sessionId);
        continue;
      }
      if (sub.closed) continue;
      if (batch.length > 0) {
        budget -= 1;
        stats.deliveredBatches += 1;
        stats.deliveredEvents += batch.length;
        try {
          sub.listener(batch);
        } catch (error) {
          close(sub);
          options.onListenerError(error, sub.channel.sessionId);
        }
      }
      // Re-queued at the back: one subscriber catching up from the table cannot starve the others.
      if (!sub.closed && (sub.pendingReset !== null || sub.last < sub.channel.head)) enqueue(sub);
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

  return {
    publish,

    async subscribe(sessionId, afterSeq, listener) {
      // Events published while this reads have no channel yet: the gap they leave is read back from the table.
      const { minSeq, maxSeq } = await repo.bounds(sessionId);
      let channel = channels.get(sessionId);
      const first = !channel;
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
      const sub = new Sub(channel, listener, startSeq, maxSeq, reset, close);
      if (reset) {
        const requested = afterSeq !== null && Number.isSafeInteger(afterSeq) ? afterSeq : null;
        sub.pendingReset = resetEnvelope(sessionId, reset, requested, maxSeq);
      }
      channel.subs.add(sub);
      if (sub.pendingReset || sub.last < channel.head) enqueue(sub);
      if (first) options.onWatch?.(sessionId);
      return sub;
    },

    stats() {
      let subscribers = 0;
      for (const channel of channels.values()) subscribers += channel.subs.size;
      return { sessions: channels.size, subscribers, queued: queue.length - queueStart, ...stats };
    },

    headOf: (sessionId) => channels.get(sessionId)?.head,
    watchedSessions: () => [...channels.keys()],
  };
}
