// Follows a session's SSE stream (cookie-authenticated); EventSource itself reconnects with Last-Event-ID.
export interface SessionEvent {
  seq: number;
  ts: string;
  event: { type: string; [field: string]: unknown };
}

export type StreamState = 'connecting' | 'live' | 'reconnecting';

/**
 * Calls `onEvent` once per stored event in seq order: a replay after a reconnect can overlap what was shown, so
 * anything at or below the last seq seen is dropped. Synthetic frames (snapshot, stream.reset) always pass.
 */
export function followSession(sessionId: string, onEvent: (event: SessionEvent) => void, onState: (state: StreamState) => void): () => void {
  const source = new EventSource(`/api/v1/agents/sessions/${encodeURIComponent(sessionId)}/stream`, { withCredentials: true });
  let lastSeq = 0;
  // Events are handed on once per animation frame, so a burst of message.delta frames costs one render, not one each.
  const pending: SessionEvent[] = [];
  const flush = () => pending.splice(0, pending.length).forEach(onEvent);
  const deliver = (event: SessionEvent) => {
    if (pending.push(event) === 1) (document.hidden ? setTimeout : requestAnimationFrame)(flush);
  };
  onState('connecting');
  source.onopen = () => onState('live');
  source.onerror = () => onState('reconnecting');
  source.onmessage = (message) => {
    let parsed: SessionEvent;
    try {
      parsed = JSON.parse(message.data);
    } catch {
      return;
    }
    const synthetic = parsed.event.type === 'snapshot' || parsed.event.type === 'stream.reset';
    if (synthetic) {
      lastSeq = Math.max(lastSeq, parsed.seq);
      deliver(parsed);
      return;
    }
    if (parsed.seq <= lastSeq) return;
    lastSeq = parsed.seq;
    deliver(parsed);
  };
  return () => source.close();
}
