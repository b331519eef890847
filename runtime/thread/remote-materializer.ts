// The accept side's materializer with the execution thread: main commits an accept's one row, the worker writes the rest.
/*
 * An accept (a fire, opening a session) commits its one row on main and hands its session starts here. They are
 * posted to the worker (one message per loop turn), whose own materializer writes the sessions, executions and
 * messages in its units and dispatches them there: neither those rows nor the dispatch cost the HTTP loop. Main
 * keeps what its reads need (every id in a 202 is readable at once): which sessions are not written yet, and a
 * promise per source that resolves when the worker reports it written.
 * A worker that dies leaves what it had not written pending in the database (the accept's row carries it): its
 * successor's boot recovery writes those, and everything not reported is posted to it again; the materializer's
 * pending marks make the second write of a source a no-op. Decision "The execution thread writes what main accepted".
 */
import type { Materializer, PendingSource } from '../execution/materializer.js';
import type { ToWorker } from './protocol.js';

export interface RemoteMaterializer extends Materializer {
  /** The worker reports these sources written (or, after a logged failure, left pending for the next boot). */
  written(sourceIds: readonly string[]): void;
  /** A new worker finished its recovery: every source not reported yet is posted to it. */
  restarted(): void;
}

interface Waiting {
  readonly source: PendingSource;
  /** Acceptance order. */
  readonly seq: number;
  readonly done: Promise<void>;
  readonly resolve: () => void;
}

export function createRemoteMaterializer(post: (message: ToWorker) => void): RemoteMaterializer {
  /** Posted or about to be, not reported yet; in acceptance order (a Map iterates in insertion order). */
  const waiting = new Map<string, Waiting>();
  /** The waiting source of each session not written yet: a read of any other session has nothing to wait for. */
  const pendingSessions = new Map<string, Waiting>();
  let newest: Waiting | null = null;
  let nextSeq = 0;
  let toPost: PendingSource[] = [];

  const flush = (): void => {
    const sources = toPost;
    toPost = [];
    if (sources.length > 0) post({ t: 'materialize', sources });
  };
  /**
   * Every source accepted so far is written. The worker reports in acceptance order, so the newest one's report
   * usually means all of them; an older source still waiting then (its unit failed and is retried alone, or it was
   * posted again to a restarted worker) is waited for too. Constant work per read in the usual case.
   */
  async function throughNow(target: Waiting): Promise<void> {
    await target.done;
    for (const entry of waiting.values()) {
      if (entry.seq > target.seq) return;
      await entry.done;
    }
  }
  async function drain(): Promise<void> {
    flush();
    while (newest !== null && waiting.size > 0) await throughNow(newest);
  }

  return {
    accepted(source) {
      if (source.starts.length === 0) return Promise.resolve();
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      const entry: Waiting = { source, seq: nextSeq++, done, resolve };
      waiting.set(source.id, entry);
      newest = entry;
      for (const start of source.starts) pendingSessions.set(start.sessionId, entry);
      if (toPost.length === 0) setImmediate(flush);
      toPost.push(source);
      return done;
    },
    writtenSoFar(sessionId) {
      // A read naming one session needs that session's rows only.
      if (sessionId !== undefined) return pendingSessions.get(sessionId)?.done ?? null;
      return newest === null || waiting.size === 0 ? null : throughNow(newest);
    },
    // The worker writes what it was posted on its next unit; waiting for its reports is all a catch-up can do here.
    catchUp: drain,
    // The worker recovers at its own boot (and at every restart): nothing pending is written on this side.
    recover: async () => 0,
    idle: drain,
    written(sourceIds) {
      for (const id of sourceIds) {
        const entry = waiting.get(id);
        if (entry === undefined) continue;
        waiting.delete(id);
        for (const start of entry.source.starts) pendingSessions.delete(start.sessionId);
        entry.resolve();
      }
    },
    restarted() {
      toPost = [...waiting.values()].map((entry) => entry.source);
      flush();
    },
  };
}
