// The messages between the accept side (main thread) and the execution worker thread, and how errors cross.
/*
 * Only positions and ids travel, never events' payloads: the main thread reads committed events from its own
 * connection when a signal names their session (runtime/events/session-feed.ts), as a PostgreSQL node does.
 * Decision "Execution in a worker thread (issue 12 item 2)".
 */
import { AppError, type ErrorCode } from '../errors.js';
import type { PendingSource } from '../execution/materializer.js';

/** What the main thread asks the worker to run and answer (`call`). */
export type WorkerMethod = 'abort' | 'idle' | 'cancel' | 'decide' | 'metrics';

export type ToWorker =
  /** Look at these sessions again (committed work on main: accepts written, messages, decisions); batched per loop turn. */
  | { readonly t: 'dispatch'; readonly sessionIds: readonly string[] }
  /** Accepts main committed: the worker writes their sessions and dispatches them (remote-materializer.ts); per loop turn. */
  | { readonly t: 'materialize'; readonly sources: readonly PendingSource[] }
  | { readonly t: 'call'; readonly id: number; readonly method: WorkerMethod; readonly args: readonly unknown[] }
  /** Main committed a write to a cached table: drop the worker's read caches. */
  | { readonly t: 'invalidate' }
  /** Main committed a timer: the worker's scheduler looks for due timers again. */
  | { readonly t: 'poke' }
  /** Shutdown: stop the execution side, flush and close the worker's connection, then answer `stopped`. */
  | { readonly t: 'stop' };

export type ToMain =
  /** Recovery done: the worker runs work from now on. */
  | { readonly t: 'ready' }
  /** Boot failed; the worker exits after this. */
  | { readonly t: 'failed'; readonly message: string }
  /** Committed events: the highest seq stored per session since the last signal (one message per loop turn). */
  | { readonly t: 'signals'; readonly marks: ReadonlyArray<readonly [string, number]> }
  /** Sources of `materialize` the worker has written (or left pending after a logged failure); per loop turn. */
  | { readonly t: 'materialized'; readonly sourceIds: readonly string[] }
  /** Queue accounting for the main thread's admission (it answers the 429/503). */
  | { readonly t: 'admission'; readonly started: number; readonly enqueued: number; readonly released: number; readonly bound: number | null }
  | { readonly t: 'reply'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly t: 'reply'; readonly id: number; readonly ok: false; readonly error: SerializedError }
  /** The worker committed a write to a cached table: drop main's read caches. */
  | { readonly t: 'invalidate' }
  /** One log line of the worker (pino JSON, already redacted): main writes it through its own logger. */
  | { readonly t: 'log'; readonly line: string }
  | { readonly t: 'stopped' };

export interface SerializedError {
  readonly code: ErrorCode | null;
  readonly message: string;
  readonly details?: Record<string, unknown>;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
}

/** AppErrors keep their code, status and details across the thread; anything else becomes a plain error. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof AppError) {
    return { code: error.code, message: error.message, details: error.details, status: error.status, retryAfterSeconds: error.retryAfterSeconds };
  }
  return { code: null, message: error instanceof Error ? error.message : String(error) };
}

export function deserializeError(error: SerializedError): Error {
  if (error.code === null) return new Error(error.message);
  return new AppError(error.code, error.message, error.details, { status: error.status, retryAfterSeconds: error.retryAfterSeconds });
}
