// The cross-node session signal port: "session S has committed events up to seq N", heard by every node after the commit.
/*
 * Only the position travels; a node that hears it reads the events from the table (runtime/events/session-feed.ts).
 * PostgreSQL implements it with LISTEN/NOTIFY (storage/postgres/session-notify.ts); SQLite has one process and no
 * implementation (Storage.signals is absent). Decision "Session streams across nodes (issue 16 item 3)".
 */

export interface SessionSignal {
  readonly sessionId: string;
  /** The highest seq the notifying transaction stored for the session. */
  readonly seq: number;
}

export interface SessionSignalHandlers {
  onSignal(signal: SessionSignal): void;
  /** Signals may have been lost (the listening connection came back): re-read every session this node streams. */
  onResync(): void;
  /**
   * Another node took this session from its live owner (a cancel arriving there): if a run of it is in flight here,
   * its claim is lost; check now rather than at the next renewal. A lost notice costs only that wait.
   */
  onSeized?(sessionId: string): void;
  /** The connection broke or a reconnect failed; it keeps trying. Never carries a password. */
  onConnectionError?(error: Error): void;
}

export interface SessionSignals {
  /** Resolves once signals are heard (a failure here is the server being unreachable); close() stops hearing them. */
  listen(handlers: SessionSignalHandlers): Promise<{ close(): Promise<void> }>;
}
