// Bench child: holds N raw-socket SSE streams (its own fd budget) and reports when every one saw a marker.
// argv: <port> <path> <streams> [local address, e.g. 127.0.0.2: its own ephemeral ports]; env SWITCHYARD_BENCH_SSE_AUTH:
// the Authorization header (env, not argv: argv shows in `ps`). stdin lines: {"expect":"<marker>"}. stdout lines: JSON reports (see SseClientReport).
import net from 'node:net';
import { createInterface } from 'node:readline';
import { announce, exitWithParent } from './child-lifecycle.js';

export type SseClientReport =
  | { type: 'ready'; opened: number; failed: number; retries: number; openMs: number }
  | { type: 'armed'; marker: string }
  | { type: 'received'; marker: string; count: number; firstAt: number; lastAt: number };

/** Wall-clock ms with sub-ms precision, comparable across processes on one machine. */
const wallNow = (): number => performance.timeOrigin + performance.now();
const CONNECT_CONCURRENCY = 200;
/** A stream not answered with its snapshot by then counts as failed (a server out of descriptors never accepts it). */
const OPEN_TIMEOUT_MS = 20_000;
/** Opening stops after this long (env SWITCHYARD_BENCH_SSE_OPEN_BUDGET_MS): the report then says what holds. */
const OPEN_BUDGET_MS = Number(process.env.SWITCHYARD_BENCH_SSE_OPEN_BUDGET_MS ?? 600_000);
const ROUND_DEADLINE_MS = 30_000;
/**
 * A stream whose open failed (timed out or closed before its snapshot, e.g. a SYN dropped while the server's accept
 * queue was full) is tried again after a pause, as an EventSource reconnects; it counts as failed after this many.
 */
const OPEN_ATTEMPTS = 3;
const RETRY_PAUSE_MS = 1_000;

interface Stream {
  socket: net.Socket;
  tail: string;
  seen: boolean;
}

const [portArg, path, countArg, localAddress] = process.argv.slice(2);
const authorization = process.env.SWITCHYARD_BENCH_SSE_AUTH;
const request = [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Accept: text/event-stream', ...(authorization ? [`Authorization: ${authorization}`] : []), '', ''].join('\r\n');
const port = Number(portArg);
const total = Number(countArg);
const streams: Stream[] = [];
let marker: string | null = null;
let seen = 0;
let firstAt = 0;
let lastAt = 0;
let deadline: NodeJS.Timeout | null = null;

function finishRound(): void {
  if (deadline) clearTimeout(deadline);
  deadline = null;
  announce({ type: 'received', marker: marker!, count: seen, firstAt, lastAt } satisfies SseClientReport);
  marker = null;
}

function onData(stream: Stream, chunk: Buffer): void {
  if (marker === null || stream.seen) return;
  // latin1 keeps byte positions; the tail catches a marker split across two reads.
  const text = stream.tail + chunk.toString('latin1');
  if (text.includes(marker)) {
    stream.seen = true;
    seen += 1;
    lastAt = wallNow();
    if (seen === 1) firstAt = lastAt;
    if (seen === streams.length) finishRound();
    return;
  }
  stream.tail = text.slice(-marker.length);
}

/** Opens one stream; resolves once the snapshot frame arrived (the server has subscribed it). */
function open(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
    const stream: Stream = { socket, tail: '', seen: false };
    let ready = false;
    let head = '';
    const timer = setTimeout(() => socket.destroy(), OPEN_TIMEOUT_MS);
    socket.setNoDelay(true);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => {
      if (!ready) {
        head += chunk.toString('latin1');
        if (head.includes('"type":"snapshot"')) {
          ready = true;
          clearTimeout(timer);
          head = '';
          streams.push(stream);
          resolve(true);
        }
        return;
      }
      onData(stream, chunk);
    });
    socket.on('error', () => {
      if (!ready) resolve(false);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (!ready) resolve(false);
    });
  });
}

async function openAll(): Promise<void> {
  const started = wallNow();
  let next = 0;
  let failed = 0;
  let retries = 0;
  const openWithRetries = async (): Promise<boolean> => {
    for (let attempt = 1; ; attempt += 1) {
      if (await open()) return true;
      if (attempt === OPEN_ATTEMPTS || wallNow() - started >= OPEN_BUDGET_MS) return false;
      retries += 1;
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    }
  };
  const worker = async (): Promise<void> => {
    while (next < total && wallNow() - started < OPEN_BUDGET_MS) {
      next += 1;
      if (!(await openWithRetries())) failed += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONNECT_CONCURRENCY, total) }, worker));
  // Streams never tried (the budget ran out) count as failed too.
  announce({ type: 'ready', opened: streams.length, failed: failed + (total - next), retries, openMs: wallNow() - started } satisfies SseClientReport);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const { expect } = JSON.parse(line) as { expect: string };
  marker = expect;
  seen = 0;
  for (const stream of streams) {
    stream.seen = false;
    stream.tail = '';
  }
  deadline = setTimeout(finishRound, ROUND_DEADLINE_MS);
  announce({ type: 'armed', marker: expect } satisfies SseClientReport);
});

exitWithParent(() => streams.forEach((s) => s.socket.destroy()));
void openAll();
