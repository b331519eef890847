// The SSE sink both adapters share: write through until the transport pushes back, then queue up to a bound.
import type { StreamSink } from './types.js';

/** What an adapter lends the sink: its own write, end and hard close. */
export interface StreamTransport {
  /** Sends (or buffers) a chunk; false means "buffered, wait for drain before writing more". */
  write(chunk: string): boolean;
  end(): void;
  /** Drops the connection at once (a slow consumer). */
  abort(): void;
}

/**
 * A write the transport refused to take at once leaves the sink "blocked": later chunks wait in `pending`
 * until the adapter calls `drain()` (uWS onWritable, node:http 'drain'). Past `limitBytes` queued, the
 * client is too slow: it is dropped and reconnects with Last-Event-ID, losing nothing (docs/events.md).
 */
export class QueuedStreamSink implements StreamSink {
  private pending: string[] = [];
  private pendingBytes = 0;
  private blocked = false;
  private done = false;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly transport: StreamTransport,
    private readonly limitBytes: number,
    /** Called once when the stream ends for any reason (end, abort, peer gone). */
    private readonly onFinish: (sink: QueuedStreamSink) => void,
  ) {}

  get closed(): boolean {
    return this.done;
  }

  /** Characters waiting for the transport to drain (0 while it keeps up). */
  get queuedBytes(): number {
    return this.pendingBytes;
  }

  write(chunk: string): boolean {
    if (this.done) return false;
    if (this.blocked) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes > this.limitBytes) {
        this.finish();
        this.transport.abort();
        return false;
      }
      return true;
    }
    if (!this.transport.write(chunk)) this.blocked = true;
    return true;
  }

  /** The transport can take more: flush the queue; false when it pushed back again. */
  drain(): boolean {
    this.blocked = false;
    while (this.pending.length > 0 && !this.done) {
      const next = this.pending.shift() as string;
      this.pendingBytes -= next.length;
      if (!this.transport.write(next)) {
        this.blocked = true;
        return false;
      }
    }
    return true;
  }

  end(): void {
    if (this.done) return;
    this.finish();
    this.transport.end();
  }

  onClose(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The peer went away (or the stream ended): forget the queue and tell the listeners, once. */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.onFinish(this);
    for (const listener of this.listeners) listener();
  }
}
