// Sustained fire with every turn running to completion (issue 12): throughput of work actually done, refusals past
// capacity, probe latencies of /healthz and a session GET during the load, drain time and RSS growth.
/*
 * `npm run bench -- --only sustained`. The server is switchyard-fire (each keyed fire starts the lookup agent and
 * the enrich flow), measured three times in one run: turns on the accept loop (inline, the default), then in the execution
 * worker thread (`--execution thread`, SWITCHYARD_EXECUTION=thread; the same pinned server core for both threads), at
 * its default nice value and at 0; then inline and thread again with the server on both cores (the client's core
 * too), where the worker can run beside the HTTP loop. autocannon fires as fast as 50 connections allow for --duration seconds;
 * meanwhile this process probes /healthz every 20 ms and GET /agents/sessions/:id every 50 ms, and samples the
 * server's RSS from /metrics each second. After the load it waits for the execution queue to drain. Rows:
 * - accepted fires: 202s per second of load (429 OVERLOADED answers are the bound working, counted in non-2xx);
 * - executions: executions started per second, from load start to drained queue;
 * - probes: latency of each probe during the load.
 */
import type { BenchContext, CustomScenario, Row, RunningServer } from './scenario.js';

const SCENARIO = 'sustained fire, turns run';

interface Probe {
  latencies: number[];
  failures: number;
}

async function metric(server: RunningServer, name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.split(' ')[1]);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Calls `url` every `everyMs` until stopped; records each answer's latency. */
function probe(url: string, everyMs: number, headers: Record<string, string> = {}): { stop(): Promise<Probe> } {
  const result: Probe = { latencies: [], failures: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const answer = await fetch(url, { headers });
        await answer.arrayBuffer();
        if (answer.ok) result.latencies.push(performance.now() - started);
        else result.failures += 1;
      } catch {
        result.failures += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return result;
    },
  };
}

function probeRow(target: string, probeResult: Probe, note: string): Row {
  const sorted = [...probeResult.latencies].sort((a, b) => a - b);
  return { scenario: SCENARIO, target, reqPerSec: 0, p50ms: percentile(sorted, 50), p99ms: percentile(sorted, 99), ratioToBaseline: null, errors: 0, non2xx: probeResult.failures, note };
}

async function measure(ctx: BenchContext, server: RunningServer, label: string): Promise<Row[]> {
  const ready = server.ready as RunningServer['ready'] & { apiKey: string; triggerId: string };
  const auth = { authorization: `Bearer ${ready.apiKey}` };
  const first = await fetch(`${server.url}/api/v1/triggers/fire`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ triggerId: ready.triggerId, input: { id: 'c-0' } }),
  });
  const sessionId = ((await first.json()) as { sessions: Array<{ sessionId: string }> }).sessions[0]!.sessionId;

  const rssBefore = await metric(server, 'process_resident_memory_bytes');
  let rssPeak = rssBefore;
  const rssTimer = setInterval(() => void metric(server, 'process_resident_memory_bytes').then((v) => (rssPeak = Math.max(rssPeak, v)), () => undefined), 1_000);
  const startedBefore = await metric(server, 'switchyard_executions_started_total');
  const loadStart = performance.now();
  const health = probe(`${server.url}/healthz`, 20);
  const session = probe(`${server.url}/api/v1/agents/sessions/${sessionId}`, 50, auth);
  const load = await ctx.load(SCENARIO, server, {
    method: 'POST',
    path: '/api/v1/triggers/fire',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'sustained-[<id>]' },
    body: JSON.stringify({ triggerId: ready.triggerId, input: { id: 'c-1' } }),
    expectedStatus: 202,
    idReplacement: true,
    boundedStatuses: [429],
  });
  const [healthResult, sessionResult] = await Promise.all([health.stop(), session.stop()]);
  const loadEnd = performance.now();
  // Drain: wait (bounded) until nothing accepted is left unstarted.
  const drainDeadline = loadEnd + 120_000;
  while ((await metric(server, 'switchyard_execution_queue_depth')) > 0 && performance.now() < drainDeadline) await new Promise((r) => setTimeout(r, 100));
  const drainSec = (performance.now() - loadEnd) / 1000;
  clearInterval(rssTimer);
  const started = (await metric(server, 'switchyard_executions_started_total')) - startedBefore;
  const refused = await metric(server, 'switchyard_execution_refused_total');
  const totalSec = (performance.now() - loadStart) / 1000;
  const rssGrowthMb = (rssPeak - rssBefore) / 1_048_576;
  const note = `${refused} answered 429 OVERLOADED; drain ${drainSec.toFixed(1)} s after the load; RSS +${rssGrowthMb.toFixed(0)} MB at peak`;
  return [
    { ...load, target: `${label} (202s/s: all answers)`, note },
    { scenario: SCENARIO, target: `${label}: executions started/s (load + drain)`, reqPerSec: started / totalSec, p50ms: Number.NaN, p99ms: Number.NaN, ratioToBaseline: null, errors: 0, non2xx: 0, note: `${started} executions in ${totalSec.toFixed(1)} s` },
    probeRow(`${label}: probe GET /healthz every 20 ms`, healthResult, 'latency during the load'),
    probeRow(`${label}: probe GET /agents/sessions/:id every 50 ms`, sessionResult, 'latency during the load'),
  ];
}

export const sustainedScenario: CustomScenario = {
  kind: 'custom',
  name: 'sustained',
  async run(ctx) {
    const rows: Row[] = [];
    // The thread twice: at its default nice value (it yields the core to HTTP) and at 0 (the core shared evenly).
    // Then on both cores (the client's too): the worker's share of a second core, which a pinned core cannot show.
    const targets = [
      ['switchyard-fire', [], 'server'],
      ['switchyard-thread', ['--execution', 'thread'], 'server'],
      ['switchyard-thread nice 0', ['--execution', 'thread', '--execution-nice', '0'], 'server'],
      ['switchyard-fire, both cores', [], 'both'],
      ['switchyard-thread, both cores', ['--execution', 'thread'], 'both'],
    ] as const;
    for (const [label, args, cores] of targets) {
      const server = await ctx.startServer('switchyard-fire', [...args], { cores });
      try {
        rows.push(...(await measure(ctx, server, label)));
      } finally {
        await ctx.stopServer(server);
      }
    }
    return rows;
  },
};
