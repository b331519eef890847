// The SSE answer to one MCP POST: JSON-RPC messages as `event: message` frames, keep-alive comments, then the end.
/*
 * Streamable HTTP: the server may answer a POST with text/event-stream, send notifications related to the request
 * (progress) and then its response, and close the stream once every response went out. No event ids: this stream
 * is not resumable (the turn it reports on is durable and readable through the REST session routes).
 */
import { SSE_HEADERS } from '../sse.js';
import type { StreamReply } from '../types.js';

export type SendMessage = (message: unknown) => void;

export interface RpcStreamOptions {
  /** Comment frames while a long turn runs, so proxies and idle timeouts keep the connection. */
  heartbeatMs: number;
  headers?: Record<string, string>;
  /** Produces the messages; the stream ends when it settles. `signal` aborts when the client goes away. */
  run(send: SendMessage, signal: AbortSignal): Promise<void>;
  onError(error: unknown): void;
}

export const rpcFrame = (message: unknown): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

export function rpcStreamReply(options: RpcStreamOptions): StreamReply {
  return {
    status: 200,
    headers: { ...SSE_HEADERS, ...options.headers },
    open(sink) {
      const gone = new AbortController();
      const heartbeat = setInterval(() => {
        if (!sink.write(': keep-alive\n\n')) gone.abort();
      }, options.heartbeatMs);
      heartbeat.unref();
      sink.onClose(() => {
        clearInterval(heartbeat);
        gone.abort();
      });
      const send: SendMessage = (message) => {
        if (!sink.closed && !sink.write(rpcFrame(message))) gone.abort();
      };
      options
        .run(send, gone.signal)
        .catch(options.onError)
        .finally(() => {
          clearInterval(heartbeat);
          sink.end();
        });
    },
  };
}
