// The uWebSockets.js adapter: copies each request into a plain object, runs the kernel, writes the reply.
import type uWS from 'uWebSockets.js';
import { clientIpOf, declaredTooLarge, isSecure, replyPayload, requestIdOf, statusLine, tooLarge } from './adapter-shared.js';
import type { HttpServer, HttpServerOptions } from './http-server.js';
import { QueuedStreamSink } from './stream-sink.js';
import { isStreamReply, type HttpRequest, type JsonReply, type Reply, type StreamReply } from './types.js';
import type { Uws } from './uws-native.js';

export function createUwsServer(uws: Uws, options: HttpServerOptions): HttpServer {
  const { kernel } = options;
  const app = uws.App();
  let listenSocket: uWS.us_listen_socket | null = null;
  const streams = new Set<QueuedStreamSink>();

  app.any('/*', (res, req) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    const request = copyRequest(res, req, options.trustProxy);
    const limit = kernel.bodyLimitFor(request);
    if (declaredTooLarge(request.headers, limit)) {
      writeJson(res, () => aborted, tooLarge(limit as number), true);
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
      if (isStreamReply(reply)) openStream(res, reply, (a) => (aborted = a));
      else writeJson(res, () => aborted, reply, false);
    }
  });

  function openStream(res: uWS.HttpResponse, reply: StreamReply, setAborted: (a: boolean) => void): void {
    const sink = new QueuedStreamSink(
      {
        write(chunk) {
          let ok = true;
          res.cork(() => {
            ok = res.write(chunk);
          });
          // false: uWS buffered it; everything after waits for onWritable.
          return ok;
        },
        end: () => res.cork(() => res.end()),
        abort: () => res.close(),
      },
      options.streamQueueLimit,
      (finished) => streams.delete(finished),
    );
    res.onAborted(() => {
      setAborted(true);
      sink.finish();
    });
    res.onWritable(() => sink.drain());
    res.cork(() => {
      res.writeStatus(statusLine(reply.status));
      for (const [name, value] of Object.entries(reply.headers)) res.writeHeader(name, value);
    });
    streams.add(sink);
    reply.open(sink);
  }

  return {
    adapter: 'uws',
    get openStreams() {
      return streams.size;
    },
    listen(host, port) {
      return new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (!socket) return reject(new Error(`could not listen on ${host}:${port}`));
          listenSocket = socket;
          resolve(uws.us_socket_local_port(socket as unknown as uWS.us_socket));
        });
      });
    },
    close() {
      if (listenSocket) uws.us_listen_socket_close(listenSocket);
      listenSocket = null;
      for (const sink of [...streams]) sink.end();
    },
    async terminate() {
      // Idle keep-alive sockets would otherwise hold the loop; uWS's App.close() drops every socket it owns.
      (app as unknown as { close?: () => void }).close?.();
    },
  };
}

function writeJson(res: uWS.HttpResponse, isAborted: () => boolean, reply: JsonReply, closeConnection: boolean): void {
  if (isAborted()) return;
  const { body, headers } = replyPayload(reply);
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
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
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: new URLSearchParams(req.getQuery() ?? ''),
    headers,
    headerCounts,
    params: {},
    body: Buffer.alloc(0),
    ip: clientIpOf(headers, Buffer.from(res.getRemoteAddressAsText()).toString(), trustProxy),
    requestId: requestIdOf(headers),
    secure: isSecure(headers, trustProxy),
  };
}
