// SSE streams held across processes on PostgreSQL (issue 16, goal 50,000 on one machine): streams open, one event
// delivered to all of them, RSS per process. `npm run bench:pg -- --only pg-sse`.
/*
 * `switchyard start --workers N --demo` on a throwaway cluster; one demo agent session; several raw-socket client
 * processes (bench/sse-client-child.ts) each hold up to CLIENT_STREAMS streams of that session from their own source
 * address (127.0.0.2, .3, …): a process may hold ~20,000 descriptors (`ulimit -Hn`) and one (source, destination)
 * address pair has ~28,000 ephemeral ports. Each round waits until the session is idle, then posts a message through
 * the service: the new turn's first event (turn.started) is appended once, NOTIFY tells every worker, and each fans it
 * out to the streams it holds. The figure is the time from sending the message to the last stream receiving that event.
 * SWITCHYARD_BENCH_SSE_STREAMS (default 50000) and SWITCHYARD_BENCH_SSE_WORKERS (default 3) override the size,
 * SWITCHYARD_BENCH_SSE_OPEN_BUDGET_MS (default 330 s) how long the clients keep opening.
 */
import { detectPinning, spawnTsNode, stopChild, type Child } from './children.js';
import { openFds, rssBytes, startCliService, type CliService } from './cli-service.js';
import { startBenchCluster } from './pg-cluster.js';
import { reports } from './sse-reports.js';
import type { CustomScenario, Row } from './scenario.js';

/** Streams per client process: under the descriptor limit with headroom, and under the ephemeral ports of one source address. */
const CLIENT_STREAMS = 16_000;
/** Each client stops opening after this long and reports what holds (SWITCHYARD_BENCH_SSE_OPEN_BUDGET_MS overrides). */
const OPEN_BUDGET_MS = Number(process.env.SWITCHYARD_BENCH_SSE_OPEN_BUDGET_MS ?? 330_000);
const ROUND_TIMEOUT_MS = 40_000;
const TURN_COMPLETED = '"type":"turn.completed"';
/** The first event of a turn: what every stream must receive once a message is posted to an idle session. */
const TURN_STARTED = '"type":"turn.started"';

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

/**
 * A conversation the key's owner drives: a fire tells the demo agent's id (a fired session itself takes no messages),
 * then a session is opened on that agent.
 */
async function agentSession(service: CliService): Promise<string> {
  const fired = await api(service, 'POST', '/triggers/fire', { triggerId: service.server.ready.triggerId, input: { prompt: 'How do I fire a trigger?' } });
  if (fired.status !== 202) throw new Error(`fire answered ${fired.status}: ${JSON.stringify(fired.json)}`);
  // One subscriber is the agent, the other a flow (opening a session on a flow answers 404).
  for (const { automationId } of fired.json.sessions as Array<{ automationId: string }>) {
    const opened = await api(service, 'POST', `/agents/${automationId}/sessions`, { message: 'How do I fire a trigger?' });
    if (opened.status === 202) return opened.json.sessionId as string;
    if (opened.status !== 404) throw new Error(`opening a session answered ${opened.status}: ${JSON.stringify(opened.json)}`);
  }
  throw new Error('the demo trigger started no agent session');
}

/**
 * The bench's own stream of the session: counts completed turns, so a round starts only once the session is idle and
 * the next event every stream sees is the new turn's `turn.started`.
 */
async function watchTurns(service: CliService, sessionId: string): Promise<{ completed(): number; close(): void }> {
  const abort = new AbortController();
  const response = await fetch(`${service.server.url}/api/v1/agents/sessions/${sessionId}/stream`, {
    headers: { authorization: `Bearer ${service.server.ready.apiKey}`, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`stream answered ${response.status}`);
  let count = 0;
  let tail = '';
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      const text = tail + decoder.decode(chunk, { stream: true });
      count += text.split(TURN_COMPLETED).length - 1;
      // Keeps a marker split across two chunks whole, without counting a whole one twice.
      const last = text.lastIndexOf(TURN_COMPLETED);
      tail = text.slice(Math.max(last < 0 ? 0 : last + TURN_COMPLETED.length, text.length - TURN_COMPLETED.length + 1));
    }
  })().catch(() => undefined);
  return { completed: () => count, close: () => abort.abort() };
}

async function until(test: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + ROUND_TIMEOUT_MS;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
  /** Opens tried again after a failed attempt (as an EventSource reconnects). */
  retries: number;
  openSeconds: number;
  deliverAllMs: number[];
  firstClientMs: number[];
  missed: number;
  /** RSS of each serving process before the streams opened and with them open. */
  rssBefore: number[];
  rssAfter: number[];
  /** Descriptors each serving process held with the streams open (its hard limit: `ulimit -Hn`). */
  fds: number[];
  facts: string;
}

export async function runPgSse(streams: number, workers: number, rounds: number): Promise<PgSseResult> {
  const cluster = await startBenchCluster();
  const children: Child[] = [];
  const closers: Array<() => void> = [];
  let service: CliService | undefined;
  try {
    service = await startCliService({ databaseUrl: await cluster.database(`bench_sse_w${workers}`), workers });
    const sessionId = await agentSession(service);
    const turns = await watchTurns(service, sessionId);
    closers.push(turns.close);
    const rssBefore = service.servingPids.map(rssBytes);
    const clients = Math.ceil(streams / CLIENT_STREAMS);
    const path = `/api/v1/agents/sessions/${sessionId}/stream`;
    const env = { SWITCHYARD_BENCH_SSE_AUTH: `Bearer ${service.server.ready.apiKey}`, SWITCHYARD_BENCH_SSE_OPEN_BUDGET_MS: String(OPEN_BUDGET_MS) };
    for (let i = 0; i < clients; i++) {
      const count = Math.min(CLIENT_STREAMS, streams - i * CLIENT_STREAMS);
      const args = [String(service.server.ready.port), path, String(count), `127.0.0.${2 + i}`];
      children.push(spawnTsNode('bench/sse-client-child.ts', args, detectPinning().clientCore, env));
    }
    const next = children.map(reports);
    const ready = await Promise.all(next.map((n) => n('ready', OPEN_BUDGET_MS + 60_000)));
    const opened = ready.reduce((sum, r) => sum + r.opened, 0);
    const rssAfter = service.servingPids.map(rssBytes);
    const fds = service.servingPids.map(openFds);

    const deliverAllMs: number[] = [];
    const firstClientMs: number[] = [];
    let missed = 0;
    for (let r = 0; r < rounds; r++) {
      // The opening turn, then each round's, must be over: otherwise its later events would match.
      await until(() => turns.completed() >= r + 1, `turn ${r + 1} to complete`);
      const marker = TURN_STARTED;
      children.forEach((child) => child.process.stdin!.write(`${JSON.stringify({ expect: marker })}\n`));
      await Promise.all(next.map((n) => n('armed', 10_000)));
      const sent = wallNow();
      await post(service, sessionId, `Round ${r + 1}: how do I fire a trigger?`);
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
      retries: ready.reduce((sum, r) => sum + r.retries, 0),
      openSeconds: round1(Math.max(...ready.map((r) => r.openMs)) / 1000),
      deliverAllMs,
      firstClientMs,
      missed,
      rssBefore,
      rssAfter,
      fds,
      facts: cluster.facts,
    };
  } finally {
    closers.forEach((close) => close());
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
          `from posting a message to its turn.started on every stream, ${r.deliverAllMs.length} rounds: p50 ${p50} ms, worst ${round1(Math.max(0, ...r.deliverAllMs))} ms ` +
          `(first stream after ${r.firstClientMs.length > 0 ? round1(median(r.firstClientMs)) : '-'} ms); opened in ${r.openSeconds} s, ${r.failed} failed to open (after ${r.retries} retries of a failed open, up to 3 attempts each), ${r.missed} missed an event; ` +
          `RSS per worker with the streams open: ${r.rssAfter.map(mib).join(', ')} (${Math.round(perStream)} B per stream); descriptors per worker: ${r.fds.join(', ')}; ` +
          `${r.clients} client processes (≤${CLIENT_STREAMS} streams each, own source address); ${r.facts}`,
      },
    ];
  },
};
