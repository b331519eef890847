// Server-Sent Events for the agent session stream: frame format, heartbeat, and the snapshot -> replay -> live reply.
import type { Clock } from '../runtime/clock.js';
import type { SessionEventBus, SessionSubscription } from '../runtime/events/event-bus.js';
import { redactCredentialMaterial } from '../runtime/events/redact-payload.js';
import { envelope, type SessionEventEnvelope, type SnapshotPayload } from '../runtime/events/session-event.js';
import type { HttpRequest, StreamReply, StreamSink } from './types.js';

/** Spec "Limits": `retry: 2000`, heartbeat comment every 25 seconds. */
export const SSE_RETRY_MS = 2000;
export const SSE_HEARTBEAT_MS = 25_000;
export const HEARTBEAT_FRAME = ': hb\n\n';

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // Reverse proxies (nginx) buffer responses unless told not to; a buffered stream is a dead stream.
  'x-accel-buffering': 'no',
});

export interface SseReplyOptions {
  sessionId: string;
  /** The raw `Last-Event-ID` header (see `lastEventIdOf`); absent or empty means a fresh stream. */
  lastEventId?: string | null;
  /**
   * Authoritative state read when the stream opens; access checks belong in the route, before sseReply. A
   * snapshot read from storage may answer later: live events are held back until its frame is sent.
   */
  snapshot: () => SnapshotPayload | Promise<SnapshotPayload>;
  bus: SessionEventBus;
  clock: Clock;
  heartbeatMs?: number;
  /** Reconnect delay announced to the client; the spec fixes 2000, tests shorten it. */
  retryMs?: number;
  headers?: Record<string, string>;
  /** The snapshot callback threw: the stream is ended and the client reconnects after `retry`. */
  onError?: (error: unknown) => void;
}

// Every subscriber of a session receives the same frozen envelope objects: serialise each one once.
const frames = new WeakMap<SessionEventEnvelope, string>();

/**
 * `id: <seq>` + one `data:` line (JSON never contains a raw newline). No `event:` line, on purpose: EventSource
 * `onmessage` only sees unnamed frames, and the type is already in the envelope (docs/events.md "Frames").
 */
export function sseFrame(env: SessionEventEnvelope): string {
  let frame = frames.get(env);
  if (frame === undefined) {
    frame = `id: ${env.seq}\ndata: ${JSON.stringify(env)}\n\n`;
    frames.set(env, frame);
  }
  return frame;
}

/** null for absent/empty; NaN for anything but a decimal seq (the bus answers that with stream.reset). */
export function parseLastEventId(raw: string | null | undefined): number | null {
  const value = raw?.trim() ?? '';
  if (value === '') return null;
  return /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
}

export function lastEventIdOf(request: HttpRequest): string | null {
  return request.headers['last-event-id'] ?? null;
}

/** retry -> snapshot (id = stream position) -> replay after Last-Event-ID or stream.reset -> live, with heartbeats. */
export function sseReply(options: SseReplyOptions): StreamReply {
  return {
    status: 200,
    headers: { ...SSE_HEADERS, ...options.headers },
    open(sink) {
      if (!sink.closed) void new SessionStream(sink, options).start();
    },
  };
}

/**
 * One open stream. A class, not closures: with 10k+ streams per process every per-stream function counts
 * (and under tsx each named closure also gets a property store from esbuild's keepNames).
 */
class SessionStream {
  private subscription: SessionSubscription | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  /** Events delivered before the snapshot frame was sent (subscription and snapshot are read asynchronously); null after. */
  private held: SessionEventEnvelope[] | null = [];

  constructor(
    private readonly sink: StreamSink,
    private readonly options: SseReplyOptions,
  ) {}

  async start(): Promise<void> {
    const { sessionId, bus, clock } = this.options;
    this.sink.onClose(() => this.stop());
    try {
      // Snapshot as soon as the subscription is taken, so the snapshot matches `latestSeq`. Whatever the bus
      // delivers meanwhile is held until the snapshot frame is out, so the snapshot is always the first frame.
      const subscription = await bus.subscribe(sessionId, parseLastEventId(this.options.lastEventId), (events) => this.deliver(events));
      if (this.sink.closed) return subscription.unsubscribe();
      this.subscription = subscription;
      const state = redactCredentialMaterial(await this.options.snapshot());
      // The id is the stream position: a reconnect from here replays exactly what follows it.
      const snapshot = envelope(sessionId, subscription.startSeq, clock.now(), {
        type: 'snapshot',
        turn: state.turn,
        pendingApproval: state.pendingApproval,
        pendingApprovalId: state.pendingApprovalId,
        latestSeq: subscription.latestSeq,
      });
      this.send(`retry: ${this.options.retryMs ?? SSE_RETRY_MS}\n\n${sseFrame(snapshot)}`);
    } catch (error) {
      this.stop();
      this.options.onError?.(error);
      this.sink.end();
      return;
    }
    const held = this.held;
    this.held = null;
    if (held !== null && held.length > 0) this.deliver(held);
    if (this.sink.closed) return this.stop();
    this.heartbeat = setInterval(beat, this.options.heartbeatMs ?? SSE_HEARTBEAT_MS, this);
    this.heartbeat.unref();
  }

  deliver(events: readonly SessionEventEnvelope[]): void {
    if (this.held !== null) {
      this.held.push(...events);
      return;
    }
    this.send(events.length === 1 ? sseFrame(events[0]) : events.map(sseFrame).join(''));
    // A deleted session has nothing more to say: end the stream (a reconnect answers 404, which stops EventSource).
    if (events.some(isDeletion) && !this.sink.closed) {
      this.stop();
      this.sink.end();
    }
  }

  /** write() is false once the adapter closed a too-slow client; it reconnects with Last-Event-ID. */
  send(chunk: string): void {
    if (!this.sink.write(chunk)) this.stop();
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.subscription?.unsubscribe();
    this.subscription = null;
  }
}

const isDeletion = (env: SessionEventEnvelope): boolean => env.event.type === 'session.changed' && env.event.change === 'deleted';

function beat(stream: SessionStream): void {
  stream.send(HEARTBEAT_FRAME);
}
