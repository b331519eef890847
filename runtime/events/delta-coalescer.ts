// Buffers message.delta text per session and merges consecutive chunks of one message into one stored event.
import { AsyncResource } from 'node:async_hooks';
import type { MessageDelta } from './session-event.js';

/** Timer port: real timers by default; tests pass a manual one so they never wait for time. */
export interface DeltaTimers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: DeltaTimers = {
  // unref: buffered deltas must not keep a finished process alive (close() flushes them on shutdown).
  set: (run, ms) => setTimeout(run, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface DeltaCoalescerOptions {
  /** Longest a chunk waits before it is stored and sent. */
  windowMs: number;
  /** Buffered characters of one session that force an immediate flush. */
  maxChars: number;
  timers: DeltaTimers;
  /** Asked to store and publish these sessions' buffers (the bus runs `take` inside a unit of work). */
  onDue(sessionIds: string[]): void;
}

interface Pending {
  segments: MessageDelta[];
  chars: number;
  /** onDue was already called for this buffer (its size, or the window): one flush request per buffer is enough. */
  due: boolean;
  /**
   * The async context of the buffer's first push (its session's run): the shared timer asks for each session's flush
   * in that session's own context, so a PostgreSQL lease fencing one session's run (storage/postgres/fence.ts) never
   * fences another session's flush. Without it every flush inherited the context of whichever push armed the timer,
   * and was refused as stale once that run released its lease (decision "PostgreSQL throughput: where the time went").
   */
  scope: AsyncResource;
}

export class DeltaCoalescer {
  private readonly pending = new Map<string, Pending>();
  private timer: unknown = null;

  constructor(private readonly options: DeltaCoalescerOptions) {}

  push(sessionId: string, delta: MessageDelta): void {
    if (delta.text.length === 0) return;
    let entry = this.pending.get(sessionId);
    if (!entry) {
      entry = { segments: [], chars: 0, due: false, scope: new AsyncResource('switchyard.delta-flush') };
      this.pending.set(sessionId, entry);
    }
    const last = entry.segments[entry.segments.length - 1];
    // Only consecutive chunks of the same message merge: a switch of message starts a new event.
    if (last && last.messageId === delta.messageId && last.executionId === delta.executionId) {
      entry.segments[entry.segments.length - 1] = { ...last, text: last.text + delta.text };
    } else {
      entry.segments.push({ executionId: delta.executionId, messageId: delta.messageId, text: delta.text });
    }
    entry.chars += delta.text.length;
    if (entry.chars >= this.options.maxChars) {
      if (!entry.due) {
        entry.due = true;
        this.options.onDue([sessionId]);
      }
      return;
    }
    if (this.timer === null) {
      this.timer = this.options.timers.set(() => {
        this.timer = null;
        for (const [sessionId, entry] of [...this.pending]) {
          // A flush already asked for takes whatever was pushed since: asking again only queues empty units behind it.
          if (entry.due) continue;
          entry.due = true;
          entry.scope.runInAsyncScope(() => this.options.onDue([sessionId]));
        }
      }, this.options.windowMs);
    }
  }

  /** Removes and returns the session's buffered segments, oldest first (empty when none). */
  take(sessionId: string): MessageDelta[] {
    const entry = this.pending.get(sessionId);
    if (!entry) return [];
    this.pending.delete(sessionId);
    if (this.pending.size === 0) this.cancelTimer();
    return entry.segments;
  }

  sessions(): string[] {
    return [...this.pending.keys()];
  }

  cancelTimer(): void {
    if (this.timer !== null) this.options.timers.clear(this.timer);
    this.timer = null;
  }
}
