// The uWebSockets.js adapter: copies each request into a plain object, runs the kernel, writes the reply.
import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import uWS from 'uWebSockets.js';
import { AppError } from '../runtime/errors.js';
import { errorReply } from './error-reply.js';
import type { Kernel } from './kernel.js';
import { isStreamReply, type HttpRequest, type JsonReply, type Reply, type StreamSink } from './types.js';

export interface UwsServerOptions {
  kernel: Kernel;
  /** Trust `X-Forwarded-For` / `X-Forwarded-Proto` from a reverse proxy. */
  trustProxy: boolean;
  /** Bytes a slow SSE client may have queued before it is closed (it reconnects with Last-Event-ID). */
  streamQueueLimit: number;
}

export interface UwsServer {
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting, then ends open streams so the process can exit. */
  close(): void;
  readonly openStreams: number;
}

/** Which uWS implementation loaded: the native binary, or the package's slower pure-Node fallback. */
export function uwsImplementation(): 'native' | 'fallback' {
  const fallbackRequested = /^(1|true)$/i.test(process.env.UWS_USE_FALLBACK ?? '');
  const supportedAbi = ['93', '108', '115'].includes(process.versions.modules);
  return !fallbackRequested && supportedAbi && typeof (uWS as unknown as { H3App?: unknown }).H3App === 'function' ? 'native' : 'fallback';
}

const statusLine = (status: number): string => `${status} ${STATUS_CODES[status] ?? ''}`.trim();

export function createUwsServer(options: UwsServerOptions): UwsServer {
  const { kernel } = options;
  const app = uWS.App();
  let listenSocket: uWS.us_listen_socket | null = null;
  const streams = new Set<StreamSink>();

  app.any('/*', (res, req) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    const request = copyRequest(res, req, options.trustProxy);
    const limit = kernel.bodyLimitFor(request.method, request.path);
    const declared = Number(request.headers['content-length'] ?? '0');
    if (limit !== null && declared > limit) {
      writeJson(res, () => aborted, tooLarge(limit), true);
      return;
    }
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    if (!hasBody) {
      void dispatch(request);
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let refused = false;
    res.onData((chunk, isLast) => {
      if (refused) return;
      received += chunk.byteLength;
      if (limit !== null && received > limit) {
        refused = true;
        writeJson(res, () => aborted, tooLarge(limit), true);
        return;
      }
      // uWS reuses the ArrayBuffer after this callback returns: copy it.
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) {
        request.body = Buffer.concat(chunks, received);
        void dispatch(request);
      }
    });

    async function dispatch(plain: HttpRequest): Promise<void> {
      const reply: Reply = await kernel.handle(plain);
      if (aborted) return;
      if (isStreamReply(reply)) openStream(res, reply, () => aborted, (a) => (aborted = a));
      else writeJson(res, () => aborted, reply, false);
    }
  });

  function openStream(res: uWS.HttpResponse, reply: Extract<Reply, { open: unknown }>, isAborted: () => boolean, setAborted: (a: boolean) => void): void {
    const limit = options.streamQueueLimit;
    const pending: string[] = [];
    let pendingBytes = 0;
    let closed = false;
    const closeListeners: Array<() => void> = [];
    const finish = (): void => {
      if (closed) return;
      closed = true;
      streams.delete(sink);
      for (const listener of closeListeners) listener();
    };
    res.onAborted(() => {
      setAborted(true);
      finish();
    });
    const sink: StreamSink = {
      get closed() {
        return closed || isAborted();
      },
      write(chunk) {
        if (sink.closed) return false;
        if (pending.length > 0) {
          pending.push(chunk);
          pendingBytes += chunk.length;
          if (pendingBytes > limit) {
            // Too slow: close; the client reconnects with Last-Event-ID and loses nothing.
            finish();
            res.close();
            return false;
          }
          return true;
        }
        let ok = true;
        res.cork(() => {
          ok = res.write(chunk);
        });
        if (!ok) {
          // uWS buffered it; everything after waits for onWritable.
          pending.push('');
        }
        return true;
      },
      end() {
        if (sink.closed) return;
        finish();
        res.cork(() => res.end());
      },
      onClose(listener) {
        closeListeners.push(listener);
      },
    };
    res.onWritable(() => {
      while (pending.length > 0) {
        const next = pending.shift() as string;
        pendingBytes -= next.length;
        if (next.length === 0) continue;
        if (!res.write(next)) {
          pending.unshift('');
          return false;
        }
      }
      return true;
    });
    res.cork(() => {
      res.writeStatus(statusLine(reply.status));
      for (const [name, value] of Object.entries(reply.headers)) res.writeHeader(name, value);
    });
    streams.add(sink);
    reply.open(sink);
  }

  return {
    get openStreams() {
      return streams.size;
    },
    listen(host, port) {
      return new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (!socket) return reject(new Error(`could not listen on ${host}:${port}`));
          listenSocket = socket;
          resolve(uWS.us_socket_local_port(socket as unknown as uWS.us_socket));
        });
      });
    },
    close() {
      if (listenSocket) uWS.us_listen_socket_close(listenSocket);
      listenSocket = null;
      for (const sink of [...streams]) sink.end();
    },
  };
}

function tooLarge(limit: number): JsonReply {
  return errorReply(new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes.`, { limitBytes: limit })).reply;
}

function writeJson(res: uWS.HttpResponse, isAborted: () => boolean, reply: JsonReply, closeConnection: boolean): void {
  if (isAborted()) return;
  const body =
    reply.body === undefined ? '' : Buffer.isBuffer(reply.body) || typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const headers = reply.headers ?? {};
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
    if (reply.body !== undefined && !headers['content-type']) res.writeHeader('content-type', 'application/json; charset=utf-8');
    for (const [name, value] of Object.entries(headers)) res.writeHeader(name, value);
    res.end(body, closeConnection);
  });
}

function copyRequest(res: uWS.HttpResponse, req: uWS.HttpRequest, trustProxy: boolean): HttpRequest {
  const headers: Record<string, string> = {};
  const headerCounts: Record<string, number> = {};
  req.forEach((name, value) => {
    headerCounts[name] = (headerCounts[name] ?? 0) + 1;
    headers[name] = headerCounts[name] > 1 ? `${headers[name]}, ${value}` : value;
  });
  const forwardedFor = trustProxy ? headers['x-forwarded-for']?.split(',')[0]?.trim() : undefined;
  const ip = forwardedFor || Buffer.from(res.getRemoteAddressAsText()).toString();
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: new URLSearchParams(req.getQuery() ?? ''),
    headers,
    headerCounts,
    params: {},
    body: Buffer.alloc(0),
    ip,
    requestId: headers['x-request-id'] && /^[\w.:-]{1,64}$/.test(headers['x-request-id']) ? headers['x-request-id'] : randomUUID(),
    secure: trustProxy && headers['x-forwarded-proto'] === 'https',
  };
}
