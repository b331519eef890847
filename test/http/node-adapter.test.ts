// The node:http adapter on a real socket: body limits while reading, client aborts, SSE backpressure and slow consumers, graceful shutdown.
import http from 'node:http';
import net from 'node:net';
import pino from 'pino';
import t from 'tap';
import type { HttpServer } from '../../http/http-server.js';
import { createKernel } from '../../http/kernel.js';
import { createHttpMetrics } from '../../http/metrics.js';
import { createNodeServer } from '../../http/node-server.js';
import { Router } from '../../http/router.js';
import type { QueuedStreamSink } from '../../http/stream-sink.js';
import type { Route } from '../../http/types.js';
import { ManualClock } from '../../runtime/clock.js';
import { TokenBuckets } from '../../runtime/rate-limit.js';

interface Tap {
  teardown(fn: () => unknown): void;
}

interface Fixture {
  server: HttpServer;
  port: number;
  /** Bodies the POST /echo handler saw (a refused body must never get here). */
  echoed: number[];
  slowStarted: Promise<void>;
  releaseSlow(): void;
  /** Resolves with the sink of the next stream the server opens. */
  nextStream(): Promise<QueuedStreamSink>;
}

const BODY_LIMIT = 1024;

async function start(t: Tap, streamQueueLimit = 1024 * 1024): Promise<Fixture> {
  const echoed: number[] = [];
  let startedSlow!: () => void;
  const slowStarted = new Promise<void>((resolve) => (startedSlow = resolve));
  let releaseSlow!: () => void;
  const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
  const streamWaiters: Array<(sink: QueuedStreamSink) => void> = [];
  const routes: Route<null>[] = [
    { method: 'POST', path: '/echo', doc: { summary: 'echo' }, handler: (request) => (echoed.push(request.body.length), { status: 200, body: { bytes: request.body.length } }) },
    {
      method: 'GET',
      path: '/slow',
      doc: { summary: 'slow' },
      async handler() {
        startedSlow();
        await slowGate;
        return { status: 200, body: { ok: true } };
      },
    },
    {
      method: 'GET',
      path: '/stream',
      doc: { summary: 'stream' },
      handler: () => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, open: (sink) => streamWaiters.shift()?.(sink as QueuedStreamSink) }),
    },
  ];
  const clock = new ManualClock(0);
  const kernel = createKernel(
    {
      router: new Router<null>(routes),
      services: null,
      logger: pino({ level: 'silent' }),
      metrics: createHttpMetrics({ defaultMetrics: false }),
      ipLimiter: new TokenBuckets({ ratePerSecond: 0, burst: 0 }, clock),
    },
    BODY_LIMIT,
  );
  const server = createNodeServer({ kernel, trustProxy: false, streamQueueLimit });
  const port = await server.listen('127.0.0.1', 0);
  t.teardown(() => {
    releaseSlow();
    server.close();
    return server.terminate();
  });
  return { server, port, echoed, slowStarted, releaseSlow, nextStream: () => new Promise((resolve) => streamWaiters.push(resolve)) };
}

/** A raw connection: the test decides what to send, and when (and whether) to read. */
function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  let cached = { count: -1, text: '' };
  const text = (): string => {
    if (cached.count !== chunks.length) cached = { count: chunks.length, text: Buffer.concat(chunks).toString('latin1') };
    return cached.text;
  };
  /** `predicate` gets a function so a cheap check can skip building the text. */
  const until = (predicate: (text: () => string) => boolean, deadlineMs = 10_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; got ${text().slice(0, 200)}`)), deadlineMs);
      const check = (): void => {
        if (!predicate(text)) return;
        clearTimeout(timer);
        socket.off('data', check);
        resolve(text());
      };
      socket.on('data', check);
      check();
    });
  return { socket, chunks, closed, text, until, bytes: () => received };
}

const statusOf = (response: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);

t.test('a declared Content-Length over the limit is answered 413 before any byte is read, and the connection closes', async (t) => {
  const f = await start(t);
  const conn = rawConnection(f.port);
  conn.socket.write(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${BODY_LIMIT * 50}\r\n\r\n`);
  await conn.closed;
  const response = conn.text();
  t.equal(statusOf(response), 413);
  t.match(response, /\r\nconnection: close\r\n/i);
  t.match(response, /"code":"PAYLOAD_TOO_LARGE"/);
  t.strictSame(f.echoed, [], 'the handler never ran');
});

t.test('a chunked body with no length is cut off at the limit while it is still arriving (413 before the client finishes)', async (t) => {
  const f = await start(t);
  const request = http.request({ port: f.port, host: '127.0.0.1', method: 'POST', path: '/echo', agent: false, headers: { 'content-type': 'application/json' } });
  request.on('error', () => undefined);
  const answered = new Promise<http.IncomingMessage>((resolve) => request.on('response', resolve));
  request.write('x'.repeat(800));
  request.write('x'.repeat(800));
  const response = await answered;
  t.equal(response.statusCode, 413, 'answered while the request body is still open');
  t.notOk(request.writableEnded, 'the client had not finished sending');
  t.equal(response.headers.connection, 'close');
  request.destroy();
  t.strictSame(f.echoed, []);

  const ok = await fetch(`http://127.0.0.1:${f.port}/echo`, { method: 'POST', body: 'y'.repeat(BODY_LIMIT) });
  t.strictSame(await ok.json(), { bytes: BODY_LIMIT }, 'exactly the limit is accepted, and the server still serves');
});

t.test('a client that aborts mid-body or while its handler runs costs nothing: no handler call, no write, no crash', async (t) => {
  const f = await start(t);
  const partial = rawConnection(f.port);
  partial.socket.write(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n${'z'.repeat(100)}`);
  partial.socket.destroy();
  await partial.closed;

  const waiting = rawConnection(f.port);
  waiting.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await f.slowStarted;
  waiting.socket.destroy();
  await waiting.closed;
  f.releaseSlow();

  const after = await fetch(`http://127.0.0.1:${f.port}/echo`, { method: 'POST', body: 'abc' });
  t.equal(after.status, 200);
  t.strictSame(f.echoed, [3], 'only the complete request reached its handler');
  t.equal(waiting.text(), '', 'nothing was written to the aborted request');
});

/** Numbered SSE frames of `size` bytes; `framesIn` reads back the ids of the complete ones. */
const frame = (id: number, size: number): string => `id: ${id}\ndata: ${'x'.repeat(size)}\n\n`;
const framesIn = (text: string): number[] => [...text.matchAll(/id: (\d+)\ndata: x+\n\n/g)].map((m) => Number(m[1]));

t.test('SSE backpressure: a reader that pauses makes writes queue; on resume it gets every frame in order and the stream stays open', async (t) => {
  const f = await start(t, 64 * 1024 * 1024);
  const conn = rawConnection(f.port);
  conn.socket.write('GET /stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
  const sinkReady = f.nextStream();
  const sink = await sinkReady;
  conn.socket.pause();
  let maxQueued = 0;
  let refused = 0;
  const count = 400;
  for (let i = 0; i < count; i++) {
    if (!sink.write(frame(i, 32 * 1024))) refused += 1;
    maxQueued = Math.max(maxQueued, sink.queuedBytes);
  }
  t.equal(refused, 0, 'below the bound every write is accepted');
  t.ok(maxQueued > 0, `the transport pushed back and ${maxQueued} characters waited for 'drain'`);
  conn.socket.resume();
  // Cheap byte count first: re-parsing 13 MB on every 'data' event would make the test quadratic.
  const payload = count * frame(0, 32 * 1024).length;
  await conn.until((text) => conn.bytes() >= payload && framesIn(text()).length === count, 20_000);
  t.strictSame(framesIn(conn.text()), Array.from({ length: count }, (_, i) => i), 'every frame, once, in order');
  t.equal(sink.queuedBytes, 0, 'the queue drained');
  t.notOk(sink.closed, 'a reader that catches up keeps its stream');
  sink.end();
  await conn.until((text) => text().endsWith('0\r\n\r\n'));
  t.pass('end() finishes the chunked response');
});

t.test('SSE slow consumer: past the queue bound the connection is dropped, and what it got is a gap-free prefix', async (t) => {
  const f = await start(t, 64 * 1024);
  const conn = rawConnection(f.port);
  conn.socket.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\n');
  const sink = await f.nextStream();
  conn.socket.pause();
  let sent = 0;
  while (sink.write(frame(sent, 32 * 1024)) && sent < 5000) {
    sent += 1;
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.ok(sink.closed, `dropped after ${sent} frames of 32 KB`);
  t.equal(f.server.openStreams, 0, 'the server forgot the stream');
  conn.socket.resume();
  await conn.closed;
  const got = framesIn(conn.text());
  t.strictSame(got, Array.from({ length: got.length }, (_, i) => i), `a prefix of ${got.length} frames, no gap`);
  t.ok(got.length < sent + 1, 'the queued tail was discarded, not delivered late');
});

t.test('graceful shutdown: no new connections, streams ended, idle keep-alives closed, in-flight requests answered', async (t) => {
  const f = await start(t);
  const stream = rawConnection(f.port);
  stream.socket.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\n');
  const sink = await f.nextStream();
  sink.write(frame(1, 10));
  const idle = rawConnection(f.port);
  idle.socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi');
  await idle.until((text) => text().includes('"bytes":2'));
  const busy = rawConnection(f.port);
  busy.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await f.slowStarted;

  f.server.close();
  await stream.until((text) => text().endsWith('0\r\n\r\n'));
  t.ok(sink.closed, 'the open stream was ended with its terminating chunk');
  await idle.closed;
  t.pass('the idle keep-alive connection was closed');
  const refused = await new Promise<string>((resolve) => net.connect(f.port, '127.0.0.1').on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? '')).on('connect', () => resolve('connected')));
  t.equal(refused, 'ECONNREFUSED', 'no new connections');

  f.releaseSlow();
  const answer = await busy.until((text) => text().includes('{"ok":true}'));
  t.equal(statusOf(answer), 200, 'the in-flight request got its answer');
  t.match(answer, /\r\nconnection: close\r\n/i, 'with Connection: close, so the client does not reuse the socket');
  await f.server.terminate();
  await busy.closed;
  t.pass('terminate() returns once every connection is gone');
});
