// Events committed by other nodes, fed to this node's subscribers: signals say "session S up to seq N", the table says what.
/*
 * For each session someone here streams, the feed reads the rows after the last seq published here and hands them
 * to the fan-out, which appends them to the session's backlog in order (seqs it already has are skipped, so the
 * local fast path and the feed never deliver twice). A signal for a session nobody here watches costs one map
 * lookup; signals that arrive together coalesce into one read per session (the read goes to the end of the table,
 * not to the signalled seq). Decision "Session streams across nodes (issue 16 item 3)".
 */
import type { PortRepositories } from '../../storage/port/storage.js';
import type { SessionSignal, SessionSignals } from '../../storage/port/session-signals.js';
import { rowEnvelope } from './session-event.js';
import type { SessionFanout } from './session-fanout.js';

export interface SessionFeedStats {
  /** Signals heard (for every session, watched here or not). */
  signals: number;
  /** Times the listening connection came back and every watched session was read again. */
  resyncs: number;
  /** Table reads made for other nodes' events, and the events they returned. */
  reads: number;
  readEvents: number;
  /** Reads that failed (retried after `retryMs`). */
  readErrors: number;
}

export interface SessionFeedOptions {
  signals: SessionSignals;
  repo: Pick<PortRepositories['sessionEvents'], 'listRange'>;
  fanout: Pick<SessionFanout, 'headOf' | 'watchedSessions' | 'publish'>;
  /** Most rows one read returns; a session with more is read again on a later turn. */
  readLimit: number;
  /** Reads in flight at once (each holds a pooled connection). */
  maxConcurrentReads: number;
  /** Wait before reading a session again after a failed read. */
  retryMs: number;
  onError(error: unknown, sessionId: string | null): void;
}

export interface SessionFeed {
  /** Starts hearing signals; rejects when the signal source cannot be reached. */
  start(): Promise<void>;
  /**
   * A session got its first subscriber here. Its head came from a read that raced other nodes' commits (a signal
   * heard before the session was watched was dropped): one read closes that gap.
   */
  watch(sessionId: string): void;
  stats(): SessionFeedStats;
  close(): Promise<void>;
}

export function createSessionFeed(options: SessionFeedOptions): SessionFeed {
  const { signals, repo, fanout, readLimit, maxConcurrentReads, retryMs } = options;
  const stats: SessionFeedStats = { signals: 0, resyncs: 0, reads: 0, readEvents: 0, readErrors: 0 };
  /** Sessions to read on the next turn (insertion order: first signalled, first read). */
  const due = new Set<string>();
  const reading = new Set<string>();
  /** Reads in flight: close() waits for them, so none reaches a pool that closes next. */
  const reads = new Set<Promise<void>>();
  const retries = new Set<NodeJS.Timeout>();
  let scheduled = false;
  let closed = false;
  let listener: { close(): Promise<void> } | null = null;

  function want(sessionId: string): void {
    if (closed) return;
    due.add(sessionId);
    if (!scheduled) {
      scheduled = true;
      // A turn later: signals heard meanwhile join the same read, and a local commit's own publish usually lands first.
      setImmediate(pump);
    }
  }

  function pump(): void {
    scheduled = false;
    if (closed) return;
    for (const sessionId of due) {
      if (reading.size >= maxConcurrentReads) break;
      if (reading.has(sessionId)) continue; // read again once the running read ends
      due.delete(sessionId);
      const running = read(sessionId).finally(() => reads.delete(running));
      reads.add(running);
    }
  }

  async function read(sessionId: string): Promise<void> {
    const head = fanout.headOf(sessionId);
    if (head === undefined) return; // its last subscriber left
    reading.add(sessionId);
    try {
      stats.reads += 1;
      const rows = await repo.listRange(sessionId, head, Number.MAX_SAFE_INTEGER, readLimit);
      stats.readEvents += rows.length;
      if (rows.length > 0) fanout.publish(rows.map((row) => rowEnvelope(sessionId, row)));
      if (rows.length === readLimit) due.add(sessionId);
    } catch (error) {
      stats.readErrors += 1;
      options.onError(error, sessionId);
      const timer = setTimeout(() => {
        retries.delete(timer);
        want(sessionId);
      }, retryMs);
      timer.unref();
      retries.add(timer);
    } finally {
      reading.delete(sessionId);
      if (due.size > 0 && !closed && !scheduled) {
        scheduled = true;
        setImmediate(pump);
      }
    }
  }

  function onSignal({ sessionId, seq }: SessionSignal): void {
    stats.signals += 1;
    const head = fanout.headOf(sessionId);
    if (head !== undefined && seq > head) want(sessionId);
  }

  function onResync(): void {
    stats.resyncs += 1;
    for (const sessionId of fanout.watchedSessions()) want(sessionId);
  }

  return {
    async start() {
      if (listener !== null || closed) return;
      listener = await signals.listen({ onSignal, onResync, onConnectionError: (error) => options.onError(error, null) });
      // Anything committed while LISTEN was being set up is read like after a reconnect.
      for (const sessionId of fanout.watchedSessions()) want(sessionId);
    },
    watch: want,
    stats: () => ({ ...stats }),
    async close() {
      closed = true;
      due.clear();
      for (const timer of retries) clearTimeout(timer);
      retries.clear();
      const last = listener;
      listener = null;
      await last?.close();
      await Promise.all([...reads]);
    },
  };
}
