// SSE streams held across processes on PostgreSQL (issue 16, goal 50,000 on one machine): streams open, one event
// delivered to all of them, RSS per process. `npm run bench:pg -- --only pg-sse`.
/*
 * `switchyard start --workers N --demo` on a throwaway cluster; one demo agent session; several raw-socket client
 * processes (bench/sse-client-child.ts) each hold up to CLIENT_STREAMS streams of that session from their own source
 * address (127.0.0.2, .3, …): a process may hold ~20,000 descriptors (`ulimit -Hn`) and one (source, destination)
 * address pair has ~28,000 ephemeral ports. Each round posts a message to the session through the service; the
 * user-message event is appended once (NOTIFY) and every worker fans it out to the streams it holds.
 * SWITCHYARD_BENCH_SSE_STREAMS (default 50000) and SWITCHYARD_BENCH_SSE_WORKERS (default 3) override the size.
 */
import { randomUUID } from 'node:crypto';
import { detectPinning, spawnTsNode, stopChild, type Child } from './children.js';
import { rssBytes, startCliService, type CliService } from './cli-service.js';
import { startBenchCluster } from './pg-cluster.js';
import { reports } from './sse-reports.js';
import type { CustomScenario, Row } from './scenario.js';

/** Streams per client process: under the descriptor limit with headroom, and under the ephemeral ports of one source address. */
const CLIENT_STREAMS = 16_000;
const OPEN_TIMEOUT_MS = 600_000;
const ROUND_TIMEOUT_MS = 40_000;

const wallNow = (): number => performance.timeOrigin + performance.now();
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round1 = (n: number): number => Math.round(n * 10) / 10;
const mib = (bytes: number): string => `${Math.round(bytes / 2 ** 20)} MiB`;

async function api(service: CliService, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${service.server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${service.server.ready.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

/** Fires the demo trigger once and returns the agent session it started (the flow's session has no agent stream). */
async function agentSession(service: CliService): Promise<string> {
  const fired = await api(service, 'POST', '/triggers/fire', { triggerId: service.server.ready.triggerId, input: { prompt: 'How do I fire a trigger?' } });
  if (fired.status !== 202) throw new Error(`fire answered ${fired.status}: ${JSON.stringify(fired.json)}`);
  for (const { sessionId } of fired.json.sessions as Array<{ sessionId: string }>) {
    if ((await api(service, 'GET', `/agents/sessions/${sessionId}`)).status === 200) return sessionId;
  }
  throw new Error('the demo trigger started no agent session');
}

/** Posts `text` as a user message; a turn still running answers a conflict, so it waits and tries again. */
async function post(service: CliService, sessionId: string, text: string): Promise<void> {
  const deadline = Date.now() + ROUND_TIMEOUT_MS;
  for (;;) {
    const answer = await api(service, 'POST', `/agents/sessions/${sessionId}/messages`, { message: text });
    if (answer.status === 200) return;
    if (Date.now() > deadline || answer.status !== 409) throw new Error(`message answered ${answer.status}: ${JSON.stringify(answer.json)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface PgSseResult {
  streams: number;
  workers: number;
  clients: number;
  opened: number;
  failed: number;
  openSeconds: number;
  deliverAllMs: number[];
  firstClientMs: number[];
  missed: number;
  /** RSS of each serving process before the streams opened and with them open. */
  rssBefore: number[];
  rssAfter: number[];
  facts: string;
}

export async function runPgSse(streams: number, workers: number, rounds: number): Promise<PgSseResult> {
  const cluster = await startBenchCluster();
  const children: Child[] = [];
  let service: CliService | undefined;
  try {
    service = await startCliService({ databaseUrl: await cluster.database(`bench_sse_w${workers}`), workers });
    const sessionId = await agentSession(service);
    const rssBefore = service.servingPids.map(rssBytes);
    const clients = Math.ceil(streams / CLIENT_STREAMS);
    const path = `/api/v1/agents/sessions/${sessionId}/stream`;
    const env = { SWITCHYARD_BENCH_SSE_AUTH: `Bearer ${service.server.ready.apiKey}` };
    for (let i = 0; i < clients; i++) {
      const count = Math.min(CLIENT_STREAMS, streams - i * CLIENT_STREAMS);
      const args = [String(service.server.ready.port), path, String(count), `127.0.0.${2 + i}`];
      children.push(spawnTsNode('bench/sse-client-child.ts', args, detectPinning().clientCore, env));
    }
    const next = children.map(reports);
    const ready = await Promise.all(next.map((n) => n('ready', OPEN_TIMEOUT_MS)));
    const opened = ready.reduce((sum, r) => sum + r.opened, 0);
    const rssAfter = service.servingPids.map(rssBytes);

    const deliverAllMs: number[] = [];
    const firstClientMs: number[] = [];
    let missed = 0;
    for (let r = 0; r < rounds; r++) {
      const marker = `MARK-${r}-${randomUUID()}`;
      children.forEach((child) => child.process.stdin!.write(`${JSON.stringify({ expect: marker })}\n`));
      await Promise.all(next.map((n) => n('armed', 10_000)));
      const sent = wallNow();
      await post(service, sessionId, marker);
      const received = await Promise.all(next.map((n) => n('received', ROUND_TIMEOUT_MS)));
      missed += received.reduce((sum, got, i) => sum + (ready[i]!.opened - got.count), 0);
      const reached = received.filter((got) => got.count > 0);
      if (reached.length > 0) {
        deliverAllMs.push(Math.max(...reached.map((got) => got.lastAt)) - sent);
        firstClientMs.push(Math.min(...reached.map((got) => got.firstAt)) - sent);
      }
    }
    return {
      streams,
      workers,
      clients,
      opened,
      failed: ready.reduce((sum, r) => sum + r.failed, 0),
      openSeconds: round1(Math.max(...ready.map((r) => r.openMs)) / 1000),
      deliverAllMs,
      firstClientMs,
      missed,
      rssBefore,
      rssAfter,
      facts: cluster.facts,
    };
  } finally {
    for (const child of children) await stopChild(child);
    await service?.stop();
    cluster.stop();
  }
}

export const pgSseScenario: CustomScenario = {
  kind: 'custom',
  name: 'pg-sse',
  async run(ctx): Promise<Row[]> {
    const streams = ctx.quick ? 300 : Number(process.env.SWITCHYARD_BENCH_SSE_STREAMS ?? 50_000);
    const workers = ctx.quick ? 2 : Number(process.env.SWITCHYARD_BENCH_SSE_WORKERS ?? 3);
    const r = await runPgSse(streams, workers, ctx.quick ? 2 : 3);
    const p50 = r.deliverAllMs.length > 0 ? round1(median(r.deliverAllMs)) : 0;
    const perStream = r.rssAfter.map((after, i) => after - r.rssBefore[i]!).reduce((a, b) => a + b, 0) / Math.max(1, r.opened);
    return [
      {
        scenario: 'SSE streams on PostgreSQL',
        target: `${r.opened}/${r.streams} streams, switchyard start --workers ${r.workers}`,
        // Streams reached per second by one event, as the sse-fanout row counts them.
        reqPerSec: p50 > 0 ? Math.round((r.opened / p50) * 1000) : 0,
        p50ms: p50,
        p99ms: r.deliverAllMs.length > 0 ? round1(Math.max(...r.deliverAllMs)) : 0,
        ratioToBaseline: null,
        errors: r.missed + r.failed,
        non2xx: 0,
        note:
          `one user message to every stream, ${r.deliverAllMs.length} rounds: p50 ${p50} ms, worst ${round1(Math.max(0, ...r.deliverAllMs))} ms ` +
          `(first stream after ${r.firstClientMs.length > 0 ? round1(median(r.firstClientMs)) : '-'} ms); opened in ${r.openSeconds} s, ${r.failed} failed to open, ${r.missed} missed an event; ` +
          `RSS per worker with the streams open: ${r.rssAfter.map(mib).join(', ')} (${Math.round(perStream)} B per stream); ` +
          `${r.clients} client processes (≤${CLIENT_STREAMS} streams each, own source address); ${r.facts}`,
      },
    ];
  },
};
