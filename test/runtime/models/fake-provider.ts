// Test helper: a local node:http server on 127.0.0.1 that records requests and answers with scripted SSE or JSON.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** Marks a point in an SSE reply where the server stops writing until `release()` is called. */
export const PAUSE = Symbol('pause');

export type Reply =
  | { status?: 200; sse: Array<string | typeof PAUSE> }
  | { status: number; json: unknown };

export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: RecordedRequest[];
  /** Lets a paused SSE reply continue. */
  release(): void;
  close(): Promise<void>;
}

/** One SSE frame; `event` is the named-event line OpenAI Responses and Anthropic send before `data:`. */
export function frame(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export async function startFakeProvider(reply: (request: RecordedRequest) => Reply): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  let releaseGate: () => void = () => {};
  let gate = Promise.resolve();
  const arm = () => {
    gate = new Promise<void>((resolve) => (releaseGate = resolve));
  };
  arm();

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const request: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(request);
    const answer = reply(request);
    if ('json' in answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.json));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    for (const item of answer.sse) {
      if (res.destroyed) return;
      if (item === PAUSE) await gate;
      else res.write(item);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    release: () => {
      releaseGate();
      arm();
    },
    close: async () => {
      releaseGate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
