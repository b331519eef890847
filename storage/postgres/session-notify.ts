// Cross-node session event signals over LISTEN/NOTIFY: a committing unit says "session S has events up to seq N"; every node hears it after the commit.
import pg from 'pg';
import type { SessionSignal } from '../port/session-signals.js';
import { describeTarget, PostgresUnreachableError, redacted } from './connection.js';

/**
 * Only the position travels (NOTIFY payloads are capped at 8000 bytes and dropped if a listener falls behind the
 * server's 8 GB queue); a node that hears it reads the events from `session_events`, after the last seq it delivered.
 */
export const SESSION_EVENTS_CHANNEL = 'switchyard_session_events';

/** A node took a session's lease from its live owner (a cancel); payload: the lease's resource, `session:<id>`. */
export const SESSION_SEIZED_CHANNEL = 'switchyard_session_seized';
const SEIZED_PREFIX = 'session:';

export type { SessionSignal };

interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/**
 * Call inside the transaction that stored the session's events up to `seq`. PostgreSQL delivers it when that
 * transaction commits (never if it rolls back), after the notifications of transactions that committed before it.
 */
export async function notifySessionEvents(tx: Queryable, signal: SessionSignal): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [SESSION_EVENTS_CHANNEL, encodeSignal(signal)]);
}

/** `seq session-id`: the seq first, so a session id may hold any character. */
export function encodeSignal({ sessionId, seq }: SessionSignal): string {
  return `${seq} ${sessionId}`;
}

export function decodeSignal(payload: string): SessionSignal | null {
  const space = payload.indexOf(' ');
  const seq = Number(payload.slice(0, space));
  if (space <= 0 || !Number.isSafeInteger(seq) || seq < 1) return null;
  return { sessionId: payload.slice(space + 1), seq };
}

export interface SessionSignalListenerOptions {
  url: string;
  applicationName?: string;
  onSignal(signal: SessionSignal): void;
  /**
   * The connection came back after a loss: notifications sent meanwhile are gone, so every session this node
   * streams must be read again from the last seq it delivered. Not called for the first connection.
   */
  onResync(): void;
  /** Another node took this session's lease (storage/postgres/leases.ts `seize`): a run of it here must stop. */
  onSeized?(sessionId: string): void;
  /** The connection broke, or a reconnect attempt failed (it keeps trying). */
  onConnectionError?(error: Error): void;
  /** A silently dead connection (a failover without a reset) is noticed by this query's failure. Default 10 s. */
  heartbeatMs?: number;
  /** First and longest wait between reconnect attempts (doubling, with jitter). Defaults 100 ms and 5 s. */
  retryMs?: { first: number; max: number };
  connectTimeoutMs?: number;
}

export interface SessionSignalListener {
  /** Whether LISTEN is in place now (false while reconnecting). */
  readonly listening: boolean;
  /** Connections made after a loss. */
  readonly reconnects: number;
  close(): Promise<void>;
}

/**
 * One dedicated connection per node (LISTEN belongs to a session, so not a pooled client). Resolves once LISTEN is
 * in place; a server that cannot be reached at start is PostgresUnreachableError, later losses are retried forever.
 */
export async function listenForSessionSignals(options: SessionSignalListenerOptions): Promise<SessionSignalListener> {
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const retry = options.retryMs ?? { first: 100, max: 5_000 };
  let client: pg.Client | null = null;
  let listening = false;
  let closed = false;
  let reconnects = 0;
  let heartbeat: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString: options.url,
      application_name: `${options.applicationName ?? 'switchyard'}-listen`,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      query_timeout: heartbeatMs,
      keepAlive: true,
    });
    next.on('notification', (message) => {
      if (message.payload === undefined) return;
      if (message.channel === SESSION_SEIZED_CHANNEL) {
        if (message.payload.startsWith(SEIZED_PREFIX)) options.onSeized?.(message.payload.slice(SEIZED_PREFIX.length));
        return;
      }
      if (message.channel !== SESSION_EVENTS_CHANNEL) return;
      const signal = decodeSignal(message.payload);
      if (signal !== null) options.onSignal(signal);
    });
    // Both fire on a broken connection; lost() acts once per client.
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('the listening connection ended')));
    try {
      await next.connect();
      await next.query(`LISTEN ${SESSION_EVENTS_CHANNEL}; LISTEN ${SESSION_SEIZED_CHANNEL}`);
    } catch (error) {
      next.removeAllListeners('end');
      await next.end().catch(() => {});
      throw error;
    }
    client = next;
    listening = true;
    heartbeat = setInterval(() => {
      next.query('SELECT 1').catch((error: Error) => lost(next, error));
    }, heartbeatMs).unref();
  };

  const lost = (which: pg.Client, error: Error): void => {
    if (closed || which !== client) return;
    client = null;
    listening = false;
    clearInterval(heartbeat);
    which.removeAllListeners('end');
    which.end().catch(() => {});
    options.onConnectionError?.(redacted(error, options.url));
    reconnect(retry.first);
  };

  const reconnect = (waitMs: number): void => {
    retryTimer = setTimeout(() => {
      if (closed) return;
      connect().then(
        () => {
          reconnects += 1;
          options.onResync();
        },
        (error: Error) => {
          options.onConnectionError?.(redacted(error, options.url));
          reconnect(Math.min(retry.max, waitMs * 2) * (0.75 + Math.random() / 2));
        },
      );
    }, waitMs);
    retryTimer.unref();
  };

  try {
    await connect();
  } catch (error) {
    throw new PostgresUnreachableError(describeTarget(options.url), redacted(error as Error, options.url));
  }
  return {
    get listening() {
      return listening;
    },
    get reconnects() {
      return reconnects;
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(retryTimer);
      const last = client;
      client = null;
      listening = false;
      if (last !== null) {
        last.removeAllListeners('end');
        await last.end().catch(() => {});
      }
    },
  };
}
