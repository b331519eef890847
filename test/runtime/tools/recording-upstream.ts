// A loopback HTTP upstream (node:http on 127.0.0.1, port 0) that records every request and answers per test.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Raw path as received, before any decoding. */
  rawPath: string;
  pathname: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Responder = (request: RecordedRequest, res: ServerResponse) => void;

export interface RecordingUpstream {
  readonly baseUrl: string;
  readonly port: number;
  readonly received: RecordedRequest[];
  /** Replaces how the upstream answers from now on (default: 200 with a JSON echo). */
  respond(responder: Responder): void;
  /** Resolves when the next request has arrived (recorded), for tests that act mid-request. */
  nextRequest(): Promise<RecordedRequest>;
  close(): Promise<void>;
}

const echo: Responder = (request, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ method: request.method, path: request.rawPath }));
};

export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const received: RecordedRequest[] = [];
  let responder = echo;
  let waiters: ((request: RecordedRequest) => void)[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://upstream.invalid');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        rawPath: req.url ?? '',
        pathname: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(recorded);
      const pending = waiters;
      waiters = [];
      for (const resolve of pending) resolve(recorded);
      responder(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    received,
    respond(next) {
      responder = next;
    },
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
