// SSE fan-out bench: N open session streams on the real HTTP server (SWITCHYARD_HTTP_ADAPTER picks it); memory per stream and publish -> last client time.
// Standalone: `node --import tsx bench/sse.bench.ts [streams=10000] [rounds=5]`. Clients live in a child process:
// the hard fd limit here is 20,000 per process (PERF-NOTES), so server and clients each get their own budget.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { createKernel } from '../http/kernel.js';
import { createHttpMetrics } from '../http/metrics.js';
import { Router } from '../http/router.js';
import { sseReply } from '../http/sse.js';
import type { Route } from '../http/types.js';
import type { AdapterName } from '../http/adapter-shared.js';
import { chooseAdapter, createHttpServer } from '../http/http-server.js';
import { configFromEnv } from '../runtime/config.js';
import { systemClock } from '../runtime/clock.js';
import { createSessionEventBus } from '../runtime/events/event-bus.js';
import { newId } from '../runtime/ids.js';
import { TokenBuckets } from '../runtime/rate-limit.js';
import { openStore, type Store } from '../storage/store.js';
import { detectPinning, killChildrenOnExit, spawnTsNode, stopChild, type Child } from './children.js';
import { reports } from './sse-reports.js';
import type { CustomScenario, Row } from './scenario.js';

export interface SseBenchOptions {
  streams?: number;
  rounds?: number;
}

export interface SseBenchRow {
  scenario: 'sse-fanout';
  adapter: AdapterName;
  streams: number;
  /** Streams that reached their snapshot frame. */
  opened: number;
  openSeconds: number;
  /** Process RSS / V8 heap growth per open stream (kernel socket buffers, ~5 KB each, are not in RSS). */
  rssPerStreamBytes: number;
  heapPerStreamBytes: number;
  rounds: number;
  /** publish() -> the last client received the event (wall clock across processes), median and worst round. */
  deliverAllMsP50: number;
  deliverAllMsMax: number;
  /** publish() -> the first client received it. */
  firstClientMsP50: number;
  /** publish() -> the server finished writing to every stream (fan-out from setImmediate, in chunks). */
  serverFanoutMsP50: number;
  /** Clients that missed the event in some round (0 expected). */
  missed: number;
  note: string;
}

const wallNow = (): number => performance.timeOrigin + performance.now();
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round1 = (n: number): number => Math.round(n * 10) / 10;
/** Hard fd limit per process minus headroom for the listen socket, the database, stdio and the runtime. */
const MAX_STREAMS = 19_000;

function forceGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

function seedSession(store: Store): string {
  const now = Date.now();
  const [orgId, domainId, automationId, sessionId] = [newId(), newId(), newId(), newId()];
  // The bench stands below the manifest layer: one tenant and session written directly, like the storage tests.
  store.transaction(() => {
    store.db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(orgId, 'Bench', now);
    store.db.prepare('INSERT INTO domains (id, org_id, name, created_at) VALUES (?, ?, ?, ?)').run(domainId, orgId, 'Bench', now);
    store.db
      .prepare(`INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES (?, ?, ?, 'agent', 'Bench', ?, ?)`)
      .run(automationId, orgId, domainId, now, now);
    store.db
      .prepare(`INSERT INTO sessions (id, org_id, domain_id, automation_id, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, 'domain', ?, ?)`)
      .run(sessionId, orgId, domainId, automationId, now, now);
  });
  return sessionId;
}

/** Moves every thread of this process to `core` (the server core); returns how to undo it. */
function pinSelf(core: number | null): { undo(): void; pinned: boolean } {
  const none = { undo: () => undefined, pinned: false };
  if (core === null) return none;
  const pid = String(process.pid);
  const current = /list:\s*(\S+)/.exec(spawnSync('taskset', ['-cp', pid], { encoding: 'utf8' }).stdout ?? '')?.[1];
  if (!current || spawnSync('taskset', ['-a', '-cp', String(core), pid], { stdio: 'ignore' }).status !== 0) return none;
  return { undo: () => void spawnSync('taskset', ['-a', '-cp', current, pid], { stdio: 'ignore' }), pinned: true };
}

export async function run(options: SseBenchOptions = {}): Promise<SseBenchRow[]> {
  const streams = Math.min(options.streams ?? 10_000, MAX_STREAMS);
  const rounds = options.rounds ?? 5;
  killChildrenOnExit();
  const store = openStore({ path: ':memory:' });
  const sessionId = seedSession(store);
  const bus = createSessionEventBus({ repo: store.repos.sessionEvents, writer: store.writer, clock: systemClock });
  const route: Route<null> = {
    method: 'GET',
    path: '/agents/sessions/:sessionId/stream',
    doc: { summary: 'session stream (bench)' },
    handler: (request) =>
      sseReply({
        sessionId: request.params.sessionId,
        snapshot: () => ({ turn: null, pendingApproval: null, pendingApprovalId: null }),
        bus,
        clock: systemClock,
      }),
  };
  const kernel = createKernel(
    {
      router: new Router<null>([route]),
      services: null,
      logger: pino({ level: 'silent' }),
      metrics: createHttpMetrics({ defaultMetrics: false }),
      ipLimiter: new TokenBuckets({ ratePerSecond: 0, burst: 0 }, systemClock),
    },
    16 * 1024,
  );
  const server = createHttpServer(chooseAdapter(configFromEnv().httpAdapter), { kernel, trustProxy: false, streamQueueLimit: 1024 * 1024 });
  const port = await server.listen('127.0.0.1', 0);
  const pinning = detectPinning();
  // PERF-NOTES: server and clients on different cores, or the figure measures their contention.
  const pin = pinSelf(pinning.serverCore);
  let child: Child | null = null;
  try {
    forceGc();
    const before = process.memoryUsage();
    child = spawnTsNode('bench/sse-client-child.ts', [String(port), `/agents/sessions/${sessionId}/stream`, String(streams)], pinning.clientCore);
    const next = reports(child);
    const ready = await next('ready', 120_000);
    forceGc();
    const after = process.memoryUsage();

    const deliverAll: number[] = [];
    const firstClient: number[] = [];
    const serverFanout: number[] = [];
    let missed = 0;
    for (let r = 0; r < rounds; r++) {
      const marker = `MARK-${r}-${newId()}`;
      child.process.stdin!.write(`${JSON.stringify({ expect: marker })}\n`);
      await next('armed', 10_000);
      // The unit's outbox publishes the events at commit.
      await store.writer.submit((tx) => bus.append(tx, sessionId, { type: 'message.delta', executionId: 'bench', messageId: 'bench', text: marker }));
      const published = wallNow();
      while (bus.stats().queued > 0) await new Promise((resolve) => setImmediate(resolve));
      serverFanout.push(wallNow() - published);
      const received = await next('received', 40_000);
      missed += ready.opened - received.count;
      deliverAll.push(received.lastAt - published);
      firstClient.push(received.firstAt - published);
    }
    return [
      {
        scenario: 'sse-fanout',
        adapter: server.adapter,
        streams,
        opened: ready.opened,
        openSeconds: round1(ready.openMs / 1000),
        rssPerStreamBytes: Math.round((after.rss - before.rss) / Math.max(1, ready.opened)),
        heapPerStreamBytes: Math.round((after.heapUsed - before.heapUsed) / Math.max(1, ready.opened)),
        rounds,
        deliverAllMsP50: round1(median(deliverAll)),
        deliverAllMsMax: round1(Math.max(...deliverAll)),
        firstClientMsP50: round1(median(firstClient)),
        serverFanoutMsP50: round1(median(serverFanout)),
        missed,
        note: pin.pinned
          ? `server (this process) on core ${pinning.serverCore}, raw-socket clients (child) on core ${pinning.clientCore}`
          : `not pinned: ${pinning.description}`,
      },
    ];
  } finally {
    pin.undo();
    if (child) await stopChild(child);
    server.close();
    await server.terminate();
    await bus.close();
    store.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const streams = process.argv[2] ? Number(process.argv[2]) : undefined;
  const rounds = process.argv[3] ? Number(process.argv[3]) : undefined;
  if ((streams !== undefined && !(streams > 0)) || (rounds !== undefined && !(rounds > 0))) {
    console.error('usage: node --import tsx bench/sse.bench.ts [streams=10000] [rounds=5]');
    process.exit(2);
  }
  const rows = await run({ streams, rounds });
  console.table(rows.map(({ note, ...row }) => row));
  console.log(rows[0].note);
  console.log(JSON.stringify(rows));
  process.exit(0);
}

/** The harness's view (bench/run.ts): fan-out latency as p50/max, memory per stream in the note. */
export const sseScenario: CustomScenario = {
  kind: 'custom',
  name: 'sse-fanout',
  async run(ctx): Promise<Row[]> {
    const rows = await run({ streams: ctx.quick ? 500 : 10_000, rounds: ctx.quick ? 2 : 5 });
    return rows.map((row) => ({
      scenario: 'sse-fanout',
      target: `${row.opened}/${row.streams} open streams (${row.adapter})`,
      reqPerSec: row.deliverAllMsP50 > 0 ? Math.round((row.opened / row.deliverAllMsP50) * 1000) : 0,
      p50ms: row.deliverAllMsP50,
      p99ms: row.deliverAllMsMax,
      ratioToBaseline: null,
      errors: row.missed,
      non2xx: 0,
      note: `one event to every stream: p50 ${row.deliverAllMsP50} ms, worst ${row.deliverAllMsMax} ms (req/s = streams reached per second); ${Math.round(row.rssPerStreamBytes)} B RSS + ${Math.round(row.heapPerStreamBytes)} B heap per stream; ${row.note}`,
    }));
  },
};
