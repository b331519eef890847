// Fire on PostgreSQL (issue 16): keyed-fire throughput of `switchyard start` on SQLite, and on PostgreSQL with 1, 2 and 3
// worker processes, beside a bare uWS hello-world, in one run. `npm run bench:pg -- --only pg-fire`.
/*
 * Every target is the real CLI seeded with the demo (`switchyard start --demo`): each fire carries a fresh
 * Idempotency-Key and starts the demo agent and flow, which run in the serving processes (builtin model, no network).
 * The serving processes (and, with workers, their supervisor) are pinned to the server core, autocannon to the client
 * core; PostgreSQL itself is not pinned (its backends float over both cores, as they would beside a real service).
 */
import { startCliService } from './cli-service.js';
import { startBenchCluster } from './pg-cluster.js';
import type { BenchContext, CustomScenario, LoadRequest, Row, RunningServer } from './scenario.js';

const SCENARIO = 'keyed fire on PostgreSQL';
const PATH = '/api/v1/triggers/fire';
/** Worker counts on PostgreSQL (SWITCHYARD_BENCH_PG_WORKERS="1,2,3" overrides). */
const WORKERS = (process.env.SWITCHYARD_BENCH_PG_WORKERS ?? '1,2,3').split(',').map(Number);

function fireRequest(server: RunningServer & { ready: { triggerId?: string } }): LoadRequest {
  return {
    method: 'POST',
    path: PATH,
    headers: { authorization: `Bearer ${server.ready.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'bench-[<id>]' },
    body: JSON.stringify({ triggerId: server.ready.triggerId, input: { prompt: 'How do I fire a trigger?' } }),
    expectedStatus: 202,
    idReplacement: true,
    // The execution queue's bound answers 429 OVERLOADED when the sessions started fall behind (issue 12).
    boundedStatuses: [429],
    steadiness: true,
  };
}

async function measureCli(ctx: BenchContext, databaseUrl: string | null, workers: number, note: string): Promise<Row> {
  const service = await startCliService({ databaseUrl, workers });
  try {
    const row = await ctx.load(SCENARIO, service.server, fireRequest(service.server));
    return { ...row, note: [row.note, note].filter(Boolean).join('; ') };
  } finally {
    await service.stop();
  }
}

export const pgFireScenario: CustomScenario = {
  kind: 'custom',
  name: 'pg-fire',
  async run(ctx) {
    const rows: Row[] = [];
    rows.push(await measureCli(ctx, null, 1, 'SQLite file, synchronous=FULL, group commit; sessions run in-process'));
    const cluster = await startBenchCluster();
    try {
      for (const workers of WORKERS) {
        const url = await cluster.database(`bench_fire_w${workers}`);
        const what = workers === 1 ? 'one process' : `${workers} worker processes on one port (SO_REUSEPORT)`;
        rows.push(await measureCli(ctx, url, workers, `${what}; ${cluster.facts}; sessions run in the workers`));
      }
    } finally {
      cluster.stop();
    }
    const baseline = await ctx.startServer('baseline-uws');
    try {
      const row = await ctx.load(SCENARIO, baseline, { method: 'POST', path: PATH, headers: { 'content-type': 'application/json' }, body: '{}' });
      rows.push({ ...row, note: [row.note, 'bare uWS hello-world, same route and load'].filter(Boolean).join('; ') });
    } finally {
      await ctx.stopServer(baseline);
    }
    const bare = rows.at(-1)!;
    if (bare.reqPerSec > 0) for (const row of rows) row.ratioToBaseline = row.reqPerSec / bare.reqPerSec;
    return rows;
  },
};
