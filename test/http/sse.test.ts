// The agent session stream over the real HTTP server (uWS or node:http, per SWITCHYARD_HTTP_ADAPTER): retry, snapshot first, envelopes, ids, heartbeat, Last-Event-ID, slow consumers.
import net from 'node:net';
import { EventSource, type FetchLike } from 'eventsource';
import pino from 'pino';
import t from 'tap';
import { createKernel } from '../../http/kernel.js';
import { createHttpMetrics } from '../../http/metrics.js';
import { Router } from '../../http/router.js';
import { lastEventIdOf, sseReply } from '../../http/sse.js';
import type { Route, StreamSink } from '../../http/types.js';
import { chooseAdapter, createHttpServer } from '../../http/http-server.js';
import type { SessionEventEnvelope, SnapshotPayload } from '../../runtime/events/session-event.js';
import { TokenBuckets } from '../../runtime/rate-limit.js';
import { busFixture, range, settle, type BusFixture } from '../runtime/events/bus-fixture.js';
import { testHttpAdapter } from '../helpers/server.js';

interface Tap {
  teardown(fn: () => unknown): void;
}

/** Values arriving over time; `until` resolves once a predicate holds (event-driven, with a failure deadline only). */
class Inbox<T> {
  readonly items: T[] = [];
  private waiters: Array<() => void> = [];
  push(item: T): void {
    this.items.push(item);
    this.waiters.forEach((check) => check());
  }
  until(predicate: (items: T[]) => boolean, what: string, deadlineMs = 10_000): Promise<T[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), deadlineMs);
      const check = (): void => {
        if (!predicate(this.items)) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve(this.items);
      };
      this.waiters.push(check);
      check();
    });
  }
}

const SNAPSHOT: SnapshotPayload = {
  turn: { executionId: 'exec-1', status: 'suspended' },
  pendingApproval: {
    approvalId: '0196a1b2-0000-7000-8000-000000000001',
    executionId: 'exec-1',
    toolCallId: 'tc-1',
    toolName: 'crm.create_contact',
    args: { email: 'ada@example.test', token: 'must-not-leak' },
    requestedAt: '2026-04-01T09:00:00.000Z',
  },
  pendingApprovalId: '0196a1b2-0000-7000-8000-000000000001',
};

interface SseServer {
  url: string;
  fixture: BusFixture;
  session: string;
  /** One per stream the server opened, with a promise that settles when it closes. */
  opened: Inbox<{ sink: StreamSink; closed: Promise<void> }>;
  /** The Last-Event-ID header of each request, in arrival order. */
  lastEventIds: Inbox<string | null>;
  /** Holds the handler of request number n (0-based) until released. */
  gate(n: number): () => void;
}

async function startSseServer(
  t: Tap,
  options: { heartbeatMs?: number; retryMs?: number; streamQueueLimit?: number; snapshot?: () => SnapshotPayload | Promise<SnapshotPayload> } = {},
): Promise<SseServer> {
  const fixture = await busFixture(t, 1);
  const [session] = fixture.sessions;
  const opened = new Inbox<{ sink: StreamSink; closed: Promise<void> }>();
  const lastEventIds = new Inbox<string | null>();
  const gates = new Map<number, Promise<void>>();
  const route: Route<null> = {
    method: 'GET',
    path: '/agents/sessions/:sessionId/stream',
    doc: { summary: 'session stream (test)' },
    async handler(request) {
      const n = lastEventIds.items.length;
      lastEventIds.push(lastEventIdOf(request));
      await gates.get(n);
      const reply = sseReply({
        sessionId: request.params.sessionId,
        lastEventId: lastEventIdOf(request),
        snapshot: () => SNAPSHOT,
        bus: fixture.bus,
        clock: fixture.clock,
        ...options,
      });
      return {
        ...reply,
        open(sink) {
          const closed = new Promise<void>((resolve) => sink.onClose(resolve));
          reply.open(sink);
          opened.push({ sink, closed });
        },
      };
    },
  };
  const kernel = createKernel(
    {
      router: new Router<null>([route]),
      services: null,
      logger: pino({ level: 'silent' }),
      metrics: createHttpMetrics({ defaultMetrics: false }),
      ipLimiter: new TokenBuckets({ ratePerSecond: 0, burst: 0 }, fixture.clock),
    },
    16 * 1024,
  );
  const server = createHttpServer(chooseAdapter(testHttpAdapter()), { kernel, trustProxy: false, streamQueueLimit: options.streamQueueLimit ?? 1024 * 1024 });
  const port = await server.listen('127.0.0.1', 0);
  t.teardown(() => {
    server.close();
    return server.terminate();
  });
  return {
    url: `http://127.0.0.1:${port}/agents/sessions/${session}/stream`,
    fixture,
    session,
    opened,
    lastEventIds,
    gate(n) {
      let release!: () => void;
      gates.set(n, new Promise<void>((resolve) => (release = resolve)));
      return release;
    },
  };
}

interface Received {
  id: string;
  env: SessionEventEnvelope;
}

/** A real EventSource client whose fetch also records the raw bytes (heartbeat comments are invisible to EventSource). */
function connect(t: Tap, url: string, headers: Record<string, string> = {}) {
  const messages = new Inbox<Received>();
  const raw = new Inbox<string>();
  const responses: Array<{ status: number; contentType: string | null }> = [];
  const tapping: FetchLike = async (input, init) => {
    const response = await fetch(input, { ...init, headers: { ...init.headers, ...headers } });
    responses.push({ status: response.status, contentType: response.headers.get('content-type') });
    const decoder = new TextDecoder();
    const body = response.body!.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          raw.push(decoder.decode(chunk, { stream: true }));
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const es = new EventSource(url, { fetch: tapping });
  es.onmessage = (message) => messages.push({ id: message.lastEventId, env: JSON.parse(message.data) as SessionEventEnvelope });
  t.teardown(() => es.close());
  return { es, messages, raw, responses, text: () => raw.items.join('') };
}

const persistedSeqs = (received: Received[]) => received.filter((r) => !['snapshot', 'stream.reset'].includes(r.env.event.type)).map((r) => r.env.seq);

t.test('stream: retry 2000, then the snapshot with pendingApproval, then live events with id = seq; heartbeats (spec Personal-key rule 4)', async (t) => {
  const server = await startSseServer(t, { heartbeatMs: 50 });
  const { bus, clock } = server.fixture;
  const s = server.session;
  await bus.emit(s, { type: 'turn.started', executionId: 'exec-1', resumed: false });
  await bus.emit(s, { type: 'message.delta', executionId: 'exec-1', messageId: 'm1', text: 'Creating the contact.' });
  await bus.emit(s, { type: 'turn.suspended', executionId: 'exec-1', approvalId: SNAPSHOT.pendingApprovalId!, toolName: 'crm.create_contact', toolCallId: 'tc-1' });
  clock.set(Date.UTC(2026, 3, 1, 9, 30));

  const client = connect(t, server.url);
  const [first] = await client.messages.until((m) => m.length >= 1, 'the snapshot');
  t.ok(client.text().startsWith('retry: 2000\n\nid: 3\ndata: {'), 'the stream starts with retry: 2000, then the snapshot frame');
  t.strictSame(client.responses, [{ status: 200, contentType: 'text/event-stream; charset=utf-8' }]);
  t.equal(first.id, '3', 'snapshot id is the current max seq');
  t.strictSame(first.env, {
    v: 1,
    sessionId: s,
    seq: 3,
    ts: '2026-04-01T09:30:00.000Z',
    event: {
      type: 'snapshot',
      turn: SNAPSHOT.turn,
      pendingApproval: { ...SNAPSHOT.pendingApproval, args: { email: 'ada@example.test', token: '[redacted]' } },
      pendingApprovalId: SNAPSHOT.pendingApprovalId,
      latestSeq: 3,
    },
  });

  await bus.emit(s, { type: 'tool_call.started', executionId: 'exec-1', toolCallId: 'tc-1', toolName: 'crm.create_contact', step: 1, edited: true });
  await bus.emit(s, { type: 'turn.completed', executionId: 'exec-1', outcome: 'completed', errorCode: null });
  const all = await client.messages.until((m) => m.length >= 3, 'two live events');
  t.strictSame(all.map((m) => [m.id, m.env.seq, m.env.event.type]), [
    ['3', 3, 'snapshot'],
    ['4', 4, 'tool_call.started'],
    ['5', 5, 'turn.completed'],
  ]);
  t.match(all[1].env, { v: 1, sessionId: s, ts: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/ });
  t.notOk(client.text().includes('\nevent:'), 'frames carry no event: line, so EventSource onmessage sees every type');
  t.notOk(client.text().includes('must-not-leak'));

  await client.raw.until(() => client.text().split(': hb\n\n').length >= 3, 'two heartbeat comments');
  t.pass('heartbeat comments arrive every heartbeatMs');

  const [{ closed }] = server.opened.items;
  client.es.close();
  await closed;
  t.equal(bus.stats().subscribers, 0, 'closing the client unsubscribed the stream');
});

t.test('a snapshot read asynchronously (storage answering later): events published meanwhile follow its frame, in order', async (t) => {
  let answer!: (payload: SnapshotPayload) => void;
  const read = new Promise<SnapshotPayload>((resolve) => (answer = resolve));
  const asked = new Inbox<true>();
  const server = await startSseServer(t, {
    snapshot: () => {
      asked.push(true);
      return read;
    },
  });
  const { bus } = server.fixture;
  const s = server.session;
  await bus.emit(s, { type: 'turn.started', executionId: 'exec-1', resumed: false });

  const client = connect(t, server.url);
  await asked.until((a) => a.length >= 1, 'the snapshot read');
  // Published and delivered to the stream's subscription while the snapshot is still being read.
  await bus.emit(s, { type: 'message.delta', executionId: 'exec-1', messageId: 'm1', text: 'Hello.' });
  await settle(bus);
  answer(SNAPSHOT);

  const all = await client.messages.until((m) => m.length >= 2, 'the snapshot, then the held event');
  t.strictSame(all.map((m) => [m.id, m.env.event.type]), [
    ['1', 'snapshot'],
    ['2', 'message.delta'],
  ]);
  t.match(all[0].env.event, { type: 'snapshot', latestSeq: 1, pendingApproval: { args: { token: '[redacted]' } } });

  await bus.emit(s, { type: 'turn.completed', executionId: 'exec-1', outcome: 'completed', errorCode: null });
  const live = await client.messages.until((m) => m.length >= 3, 'a live event after the held one');
  t.equal(live[2].env.seq, 3, 'live events continue after the held ones');
});

t.test('reconnect with Last-Event-ID (real EventSource) replays exactly the missed events: zero gaps, zero duplicates', async (t) => {
  const server = await startSseServer(t, { retryMs: 20 });
  const { bus } = server.fixture;
  const s = server.session;
  const client = connect(t, server.url);
  await client.messages.until((m) => m.length >= 1, 'the first snapshot');
  for (let i = 0; i < 3; i++) await bus.emit(s, { type: 'message.delta', executionId: 'e1', messageId: 'm1', text: `part ${i}` });
  await client.messages.until((m) => m.length >= 4, 'three live events');

  const release = server.gate(1);
  server.opened.items[0].sink.end();
  // While the client is away: individual events and coalesced deltas.
  await bus.emit(s, { type: 'tool_call.started', executionId: 'e1', toolCallId: 't1', toolName: 'crm.find', step: 1, edited: false });
  await bus.emit(s, { type: 'tool_call.finished', executionId: 'e1', toolCallId: 't1', toolName: 'crm.find', status: 'succeeded', errorCode: null, identity: 'caller', durationMs: 12 });
  bus.pushDelta(s, { executionId: 'e1', messageId: 'm2', text: 'Found ' });
  bus.pushDelta(s, { executionId: 'e1', messageId: 'm2', text: 'it.' });
  await bus.emit(s, { type: 'turn.completed', executionId: 'e1', outcome: 'completed', errorCode: null });
  await server.lastEventIds.until((ids) => ids.length >= 2, 'the reconnect request');
  release();

  const afterReconnect = await client.messages.until((m) => m.length >= 9, 'snapshot + 4 replayed');
  t.strictSame(server.lastEventIds.items, [null, '3'], 'EventSource sent Last-Event-ID = the last id it saw');
  const second = afterReconnect[4];
  t.strictSame([second.id, second.env.event.type, (second.env.event as { latestSeq: number }).latestSeq], ['3', 'snapshot', 7], 'the new snapshot sits at the resume position');
  await bus.emit(s, { type: 'session.changed', change: 'renamed' });
  const everything = await client.messages.until((m) => m.length >= 10, 'one more live event');
  t.strictSame(persistedSeqs(everything), range(1, 8), 'across both connections: every seq exactly once, in order');
  t.strictSame(
    everything.filter((m) => m.env.event.type !== 'snapshot').map((m) => m.env.event.type),
    ['message.delta', 'message.delta', 'message.delta', 'tool_call.started', 'tool_call.finished', 'message.delta', 'turn.completed', 'session.changed'],
  );
  t.equal((everything[7].env.event as { text: string }).text, 'Found it.', 'the buffered deltas were stored (coalesced) before turn.completed');
  t.ok(everything.every((m) => m.id === String(m.env.seq)), 'every frame id equals its envelope seq');
});

/** A raw HTTP/1.1 GET on a socket: the caller decides when (and whether) it reads. */
function rawGet(url: string, headers: Record<string, string> = {}): { socket: net.Socket; bytes: Buffer[]; ended: Promise<void> } {
  const { port, pathname } = new URL(url);
  const socket = net.connect(Number(port), '127.0.0.1');
  const lines = [`GET ${pathname} HTTP/1.1`, 'Host: 127.0.0.1', 'Accept: text/event-stream', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const bytes: Buffer[] = [];
  socket.on('data', (chunk) => bytes.push(chunk));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  return { socket, bytes, ended };
}

/** Decodes a chunked HTTP response body and returns its complete SSE frames (a cut-off tail is dropped). */
function framesOf(raw: Buffer): Array<{ id?: string; data?: string; retry?: string; comment?: string }> {
  const headEnd = raw.indexOf('\r\n\r\n');
  let pos = headEnd + 4;
  const parts: Buffer[] = [];
  while (pos < raw.length) {
    const lineEnd = raw.indexOf('\r\n', pos);
    if (lineEnd < 0) break;
    const size = parseInt(raw.subarray(pos, lineEnd).toString(), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(raw.subarray(lineEnd + 2, Math.min(raw.length, lineEnd + 2 + size)));
    pos = lineEnd + 2 + size + 2;
  }
  const text = Buffer.concat(parts).toString('utf8');
  const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
  return complete
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const frame: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        else frame[line.slice(0, line.indexOf(':'))] = line.slice(line.indexOf(':') + 2);
      }
      return frame;
    });
}

t.test('Last-Event-ID the server cannot honour: snapshot at the current max, then stream.reset, then live', async (t) => {
  const server = await startSseServer(t);
  const { bus } = server.fixture;
  const s = server.session;
  for (let i = 0; i < 2; i++) await bus.emit(s, { type: 'turn.started', executionId: `e${i}`, resumed: false });
  for (const [header, reason, requested] of [
    ['99', 'last_event_id_ahead', 99],
    ['abc', 'last_event_id_invalid', null],
  ] as const) {
    const conn = rawGet(server.url, { 'Last-Event-ID': header });
    await server.opened.until((o) => o.length >= (header === '99' ? 1 : 2), 'stream opened');
    await settle(bus);
    await new Promise<void>((resolve) => {
      const check = () => (framesOf(Buffer.concat(conn.bytes)).length >= 3 ? resolve() : conn.socket.once('data', check));
      check();
    });
    const frames = framesOf(Buffer.concat(conn.bytes));
    t.strictSame(frames[0], { retry: '2000' }, `${header}: retry first`);
    t.equal(frames[1].id, '2');
    t.equal(JSON.parse(frames[1].data!).event.type, 'snapshot');
    t.equal(frames[2].id, '2', 'the reset carries the stream position');
    t.strictSame(JSON.parse(frames[2].data!).event, { type: 'stream.reset', reason, requestedSeq: requested, latestSeq: 2 });
    conn.socket.destroy();
  }
});

t.test('a slow consumer is closed at the queue limit, and a reconnect from its last complete frame gets everything', async (t) => {
  const server = await startSseServer(t, { streamQueueLimit: 64 * 1024 });
  const { bus } = server.fixture;
  const s = server.session;
  const slow = rawGet(server.url);
  slow.socket.pause(); // never reads: kernel buffers fill, then the adapter reports backpressure, then our queue limit trips
  const [{ closed }] = await server.opened.until((o) => o.length >= 1, 'slow stream opened');
  let isClosed = false;
  void closed.then(() => (isClosed = true));
  const big = 'x'.repeat(32 * 1024);
  let emitted = 0;
  while (!isClosed && emitted < 1500) {
    await bus.emit(s, { type: 'message.delta', executionId: 'e1', messageId: 'm1', text: `${emitted}:${big}` });
    emitted += 1;
    await settle(bus);
  }
  t.ok(isClosed, `the server closed the stream after ${emitted} events of 32 KB`);
  t.equal(bus.stats().subscribers, 0, 'the closed stream was unsubscribed');

  slow.socket.resume();
  await slow.ended;
  const frames = framesOf(Buffer.concat(slow.bytes)).filter((f) => f.id !== undefined);
  const got = frames.slice(1).map((f) => JSON.parse(f.data!).seq as number);
  t.strictSame(got, range(1, got.length), `what the slow client had received is a gap-free prefix (${got.length} events)`);
  const lastId = frames[frames.length - 1].id!;

  const client = connect(t, server.url, { 'Last-Event-ID': lastId });
  const rest = await client.messages.until((m) => m.some((r) => r.env.seq === emitted && r.env.event.type === 'message.delta'), 'the rest');
  t.strictSame([...got, ...persistedSeqs(rest)], range(1, emitted), 'prefix + replay = every event exactly once');
  t.equal(persistedSeqs(rest)[0], Number(lastId) + 1);
});
