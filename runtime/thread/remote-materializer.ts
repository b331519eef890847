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
  readonly done: Promise<void>;
  readonly resolve: () => void;
}

export function createRemoteMaterializer(post: (message: ToWorker) => void): RemoteMaterializer {
  /** Posted or about to be, not reported yet; in acceptance order. */
  const waiting = new Map<string, Waiting>();
  /** Sessions of the waiting sources: a read of any other session has nothing to wait for. */
  const pendingSessions = new Set<string>();
  let toPost: PendingSource[] = [];

  const flush = (): void => {
    const sources = toPost;
    toPost = [];
    if (sources.length > 0) post({ t: 'materialize', sources });
  };
  const allWaiting = (): Promise<void> | null =>
    waiting.size === 0 ? null : Promise.all([...waiting.values()].map((entry) => entry.done)).then(() => undefined);
  async function drain(): Promise<void> {
    flush();
    for (let pending = allWaiting(); pending !== null; pending = allWaiting()) await pending;
  }

  return {
    accepted(source) {
      if (source.starts.length === 0) return Promise.resolve();
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      waiting.set(source.id, { source, done, resolve });
      for (const start of source.starts) pendingSessions.add(start.sessionId);
      if (toPost.length === 0) setImmediate(flush);
      toPost.push(source);
      return done;
    },
    writtenSoFar(sessionId) {
      if (sessionId !== undefined && !pendingSessions.has(sessionId)) return null;
      return allWaiting();
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
