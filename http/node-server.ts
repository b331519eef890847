// The node:http adapter: the same kernel behind a Node request handler, served on its own port or mounted in a host app.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { notFound } from '../runtime/errors.js';
import { clientIpOf, declaredTooLarge, isSecure, replyPayload, requestIdOf, tooLarge } from './adapter-shared.js';
import { errorReply } from './error-reply.js';
import type { HttpServer, HttpServerOptions } from './http-server.js';
import { QueuedStreamSink } from './stream-sink.js';
import { isStreamReply, type HttpRequest, type JsonReply, type StreamReply } from './types.js';

export type NodeRequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Answers requests with the kernel and owns the SSE streams it opened, so a shutdown can end them. */
export class NodeAdapter {
  private readonly streams = new Set<QueuedStreamSink>();
  /** Set by close(): every later answer carries `Connection: close` so keep-alive sockets drain away. */
  private closing = false;

  constructor(private readonly options: HttpServerOptions) {}

  get openStreams(): number {
    return this.streams.size;
  }

  /**
   * A `(req, res)` handler. With `basePath` ('/switchyard'), that prefix is stripped from the URL, as a host
   * app routing a prefix here expects; anything outside it is the uniform 404.
   */
  handler(basePath = ''): NodeRequestHandler {
    const prefix = basePath.replace(/\/+$/, '');
    return (req, res) => this.handle(req, res, prefix);
  }

  close(): void {
    this.closing = true;
    for (const sink of [...this.streams]) sink.end();
  }

  private handle(req: IncomingMessage, res: ServerResponse, prefix: string): void {
    const { kernel } = this.options;
    // A client gone mid-body makes `req` emit 'error' (ECONNRESET): unobserved, that would crash the process.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    let gone = false;
    res.once('close', () => (gone = !res.writableFinished));
    const request = this.copyRequest(req, prefix);
    if (request === null) return this.writeJson(res, errorReply(notFound()).reply, false);
    const limit = kernel.bodyLimitFor(request);
    if (declaredTooLarge(request.headers, limit)) return this.writeJson(res, tooLarge(limit as number), true);
    const dispatch = async (): Promise<void> => {
      const reply = await kernel.handle(request);
      if (gone || res.writableEnded) return; // the client went away while the handler ran
      if (isStreamReply(reply)) this.openStream(res, reply);
      else this.writeJson(res, reply, false);
    };
    if (request.method === 'GET' || request.method === 'HEAD') {
      req.resume();
      void dispatch();
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      received += chunk.length;
      // Enforced while reading: a body without Content-Length (chunked) is cut off at the limit, not buffered whole.
      if (limit !== null && received > limit) {
        refused = true;
        chunks.length = 0;
        this.writeJson(res, tooLarge(limit), true);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused || gone) return;
      request.body = Buffer.concat(chunks, received);
      void dispatch();
    });
  }

  private openStream(res: ServerResponse, reply: StreamReply): void {
    const sink = new QueuedStreamSink(
      {
        // false: Node buffered past the socket's high-water mark; the rest waits for 'drain'.
        write: (chunk) => res.write(chunk),
        end: () => res.end(),
        abort: () => res.destroy(),
      },
      this.options.streamQueueLimit,
      (finished) => this.streams.delete(finished),
    );
    res.on('drain', () => sink.drain());
    res.on('close', () => sink.finish());
    res.writeHead(reply.status, reply.headers);
    res.flushHeaders();
    // SSE frames are small and latency-bound: do not let Nagle hold them back.
    res.socket?.setNoDelay(true);
    this.streams.add(sink);
    reply.open(sink);
    // Opened by a request that was in flight when close() ended the others.
    if (this.closing) sink.end();
  }

  private writeJson(res: ServerResponse, reply: JsonReply, closeConnection: boolean): void {
    if (res.headersSent || res.destroyed) return;
    const { body, headers } = replyPayload(reply);
    res.writeHead(reply.status, closeConnection || this.closing ? { ...headers, connection: 'close' } : headers);
    res.end(body);
  }

  /** null when the path lies outside the mount prefix. */
  private copyRequest(req: IncomingMessage, prefix: string): HttpRequest | null {
    // rawHeaders, not req.headers: Node drops repeats of some headers, and repeats must be counted (Idempotency-Key).
    const headers: Record<string, string> = {};
    const headerCounts: Record<string, number> = {};
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      headerCounts[name] = (headerCounts[name] ?? 0) + 1;
      headers[name] = headerCounts[name] > 1 ? `${headers[name]}, ${raw[i + 1]}` : raw[i + 1];
    }
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    let path = queryAt < 0 ? url : url.slice(0, queryAt);
    if (prefix) {
      if (path !== prefix && !path.startsWith(`${prefix}/`)) return null;
      path = path.slice(prefix.length) || '/';
    }
    const { trustProxy } = this.options;
    return {
      method: (req.method ?? 'GET').toUpperCase(),
      path,
      query: new URLSearchParams(queryAt < 0 ? '' : url.slice(queryAt + 1)),
      headers,
      headerCounts,
      params: {},
      body: Buffer.alloc(0),
      // Dual-stack sockets report IPv4 peers as ::ffff:a.b.c.d; the rate limiter keys on the plain address.
      ip: clientIpOf(headers, (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''), trustProxy),
      requestId: requestIdOf(headers),
      secure: isSecure(headers, trustProxy),
    };
  }
}

export function createNodeServer(options: HttpServerOptions): HttpServer {
  const adapter = new NodeAdapter(options);
  const server: Server = createServer(adapter.handler());
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  let listened = false;
  return {
    adapter: 'node',
    get openStreams() {
      return adapter.openStreams;
    },
    listen(host, port) {
      return new Promise((resolve, reject) => {
        // The same message as the uWS adapter's, whichever adapter runs (the CLI prints it as is).
        const failed = (error: NodeJS.ErrnoException) => reject(new Error(`could not listen on ${host}:${port} (${error.code ?? error.message})`));
        server.once('error', failed);
        server.listen(port, host, () => {
          server.off('error', failed);
          listened = true;
          resolve((server.address() as AddressInfo).port);
        });
      });
    },
    close() {
      // No new connections; idle keep-alive sockets go now, busy ones after their answer (Connection: close).
      if (server.listening) server.close();
      server.closeIdleConnections();
      adapter.close();
    },
    async terminate() {
      if (!listened) return;
      if (server.listening) server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
