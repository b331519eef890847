// A real EventSource on a session's SSE stream for tests on server processes: the frames seen, and a bounded wait.
import { EventSource } from 'eventsource';

export interface Frame {
  seq: number;
  type: string;
}

export interface FollowedStream {
  readonly frames: Frame[];
  close(): void;
  /** Resolves once `test(frames)` holds; throws with the frames seen after `ms`. */
  until(test: (frames: Frame[]) => boolean, ms?: number): Promise<void>;
}

/** Follows a session's stream on the server at `port` from after `lastEventId`, the key and the id sent through its fetch hook. */
export function followSession(port: number, sessionId: string, key: string, lastEventId: number): FollowedStream {
  const frames: Frame[] = [];
  let wake = () => {};
  const source = new EventSource(`http://127.0.0.1:${port}/api/v1/agents/sessions/${sessionId}/stream`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${key}`, 'last-event-id': String(lastEventId) } }),
  });
  source.onmessage = (message) => {
    const data = JSON.parse(message.data) as { seq: number; event: { type: string } };
    frames.push({ seq: data.seq, type: data.event.type });
    wake();
  };
  return {
    frames,
    close: () => source.close(),
    async until(test, ms = 20_000) {
      const deadline = Date.now() + ms;
      while (!test(frames)) {
        if (Date.now() > deadline) throw new Error(`stream never matched: ${JSON.stringify(frames)}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
    },
  };
}
