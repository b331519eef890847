// Domain records for a session's event log (storage/repos/session-events.repo.ts reads them).

/** One stored event of a session's stream, as SSE replays it. */
export interface StoredSessionEvent {
  /** Dense per-session sequence number (the SSE id). */
  seq: number;
  /** Epoch milliseconds. */
  ts: number;
  type: string;
  /**
   * JSON object text: the event's fields other than `type`. Kept as text: a replay after `Last-Event-ID` sends it
   * byte for byte, so it is never parsed and serialized again on the way out.
   */
  payload: string;
}

export interface SeqBounds {
  /** Lowest stored seq, 0 when the session has no events. */
  minSeq: number;
  /** Highest stored seq, 0 when the session has no events. */
  maxSeq: number;
}
