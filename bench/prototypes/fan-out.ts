// Measurement prototype, not service code: the accept side's fan-out of committed events — builds each SSE frame and checks per-session order.
import type { Envelope } from './execution-side.js';

export interface FanOut {
  deliver(envelope: Envelope): void;
  readonly stats: { envelopes: number; bytes: number; outOfOrder: number };
}

/** No subscriber is connected in this prototype: the frame is built (the per-event cost) and counted, not written. */
export function createFanOut(): FanOut {
  const lastSeq = new Map<string, number>();
  const stats = { envelopes: 0, bytes: 0, outOfOrder: 0 };
  return {
    deliver(envelope) {
      const frame = `id: ${envelope.seq}\nevent: ${envelope.type}\ndata: ${JSON.stringify(envelope)}\n\n`;
      stats.envelopes += 1;
      stats.bytes += frame.length;
      if (envelope.seq !== (lastSeq.get(envelope.sessionId) ?? 0) + 1) stats.outOfOrder += 1;
      if (envelope.type === 'turn.completed') lastSeq.delete(envelope.sessionId);
      else lastSeq.set(envelope.sessionId, envelope.seq);
    },
    stats,
  };
}
