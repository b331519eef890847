// Fire bench: POST /triggers/fire with two subscribers and its idempotent replay, beside a bare uWS hello-world and the
// raw better-sqlite3 floor (same rows, same durability, group commit). `npm run bench -- --only fire`.
/*
 * Rows, per scenario, with "× baseline" relative to the floor (baseline-fire-sqlite), the cost every durable fire pays:
 * - switchyard-fire: the real service; each fire starts the lookup agent and the enrich flow, which then run in the
 *   same process (the example's crm is unreachable, so their tool calls fail fast);
 * - switchyard-fire --accept-only: the same, but sessions stay queued: the accept path (one run row per fire) plus the
 *   materializer writing the sessions after it in the same process, comparable to the floor;
 * - switchyard-fire --accept-only --history N: the same over a database already holding N completed keyed fires
 *   (claims, Run history, sessions, executions): accept throughput must not decay with history (issue 12). It runs
 *   the replay first, as the empty target does, so both keyed-fire rows follow the same sequence on their server,
 *   and every row loads after a warm-up (WARMUP_SEC; docs/decisions.md "Accept throughput over a long history");
 * Every fire carries a fresh Idempotency-Key (autocannon's [<id>]), so each one takes and completes a claim.
 * - switchyard-fire --execution thread --unbounded, both cores: the HTTP thread's accept capacity with the execution
 *   thread writing and running what it accepted beside it (queue bound lifted, so it falls behind over the load);
 * - baseline-fire-sqlite: the floor; baseline-uws: a bare hello-world.
 * The replay is measured first on a fresh server, so no backlog of running sessions competes with it.
 */
import type { BenchContext, CustomScenario, LoadRequest, Row, RunningServer, ServerPlacement } from './scenario.js';

const FIRE = 'keyed fire (2 subscribers)';
const REPLAY = 'fire idempotent replay';
const FLOOR = 'baseline-fire-sqlite';
const PATH = '/api/v1/triggers/fire';
const REPLAY_KEY = 'bench-replay-1';
/**
 * Seconds of load before the measured ones: the accept path ramps up for ~15 s on a fresh server (JIT, SQLite's page
 * cache, the first WAL checkpoints; server CPU per fire ~700-800 µs in the first 15 s, ~560-600 after, with or without
 * history), and issue 12 asks for steady state. --quick skips it.
 */
const WARMUP_SEC = 15;
/** Completed keyed fires stored before the history row's load (SWITCHYARD_BENCH_HISTORY overrides; seeding 1,000,000 takes ~1 min). */
const HISTORY = Number(process.env.SWITCHYARD_BENCH_HISTORY ?? 1_000_000);

interface Target {
  server: string;
  args?: string[];
  /** Where the server runs (default: the server core alone). */
  placement?: ServerPlacement;
  /** Row label when it differs from the server name. */
  label?: string;
  note: string;
  scenarios: readonly string[];
  request(server: RunningServer, keyed: boolean): LoadRequest;
}

const body = (triggerId: string): string => JSON.stringify({ triggerId, input: { id: 'c-1' } });
const keyHeader = (replay: boolean): Record<string, string> => ({ 'idempotency-key': replay ? REPLAY_KEY : 'bench-[<id>]' });

function switchyardRequest(server: RunningServer, keyed: boolean): LoadRequest {
  const ready = server.ready as RunningServer['ready'] & { triggerId?: string };
  if (!ready.apiKey || !ready.triggerId) throw new Error('switchyard-fire announced no apiKey / triggerId');
  return {
    method: 'POST',
    path: PATH,
    headers: { authorization: `Bearer ${ready.apiKey}`, 'content-type': 'application/json', ...keyHeader(keyed) },
    body: body(ready.triggerId),
    expectedStatus: 202,
    idReplacement: !keyed,
    // With turns running in-process the execution queue fills up: its bound answers 429 OVERLOADED (issue 12).
    boundedStatuses: [429],
    steadiness: true,
  };
}

const bareRequest = (expectedStatus?: number) => (_server: RunningServer, keyed: boolean): LoadRequest => ({
  method: 'POST',
  path: PATH,
  headers: { 'content-type': 'application/json', ...keyHeader(keyed) },
  body: body('00000000-0000-7000-8000-000000000000'),
  idReplacement: !keyed,
  steadiness: true,
  ...(expectedStatus !== undefined ? { expectedStatus } : {}),
});

const TARGETS: Target[] = [
  {
    server: 'switchyard-fire',
    args: ['--accept-only'],
    label: 'switchyard-fire --accept-only',
    note: 'the accept path: one row per fire before the 202; its sessions written in bulk after it, in-process, and not run',
    scenarios: [REPLAY, FIRE],
    request: switchyardRequest,
  },
  {
    server: 'switchyard-fire',
    args: ['--accept-only', '--history', String(HISTORY)],
    label: `switchyard-fire --accept-only --history ${HISTORY}`,
    note: `the accept path over ${HISTORY.toLocaleString('en')} stored keyed fires (claims, runs, sessions, executions)`,
    scenarios: [REPLAY, FIRE],
    request: switchyardRequest,
  },
  {
    server: 'switchyard-fire',
    note: 'each fire starts 2 sessions that then run in-process (crm unreachable: tool calls fail fast)',
    scenarios: [FIRE],
    request: switchyardRequest,
  },
  {
    server: 'switchyard-fire',
    args: ['--execution', 'thread', '--unbounded'],
    placement: { cores: 'both' },
    label: 'switchyard-fire --execution thread --unbounded, both cores',
    note: 'the HTTP thread commits one row per fire and answers; the execution thread writes the sessions and runs them (falling behind: queue bound lifted); server on both cores, the client sharing one',
    scenarios: [FIRE],
    request: switchyardRequest,
  },
  {
    server: FLOOR,
    note: 'floor: raw better-sqlite3, same rows and schema, synchronous=FULL, group commit; no auth, no planning',
    scenarios: [REPLAY, FIRE],
    request: bareRequest(202),
  },
  { server: 'baseline-uws', note: 'bare uWS hello-world', scenarios: [REPLAY, FIRE], request: bareRequest() },
];

async function measure(ctx: BenchContext, target: Target): Promise<Row[]> {
  const server = await ctx.startServer(target.server, target.args, target.placement);
  const rows: Row[] = [];
  const warmupSec = ctx.quick ? 0 : WARMUP_SEC;
  try {
    // A replay's probe request takes the claim; every loaded request after it is a replay of that firing.
    for (const scenario of target.scenarios) {
      const row = await ctx.load(scenario, server, target.request(server, scenario === REPLAY), { warmupSec });
      const warm = warmupSec > 0 ? `after ${warmupSec} s warm-up` : '';
      rows.push({ ...row, target: target.label ?? row.target, note: [warm, row.note, target.note].filter(Boolean).join('; ') });
    }
    return rows;
  } finally {
    await ctx.stopServer(server);
  }
}

export const fireScenario: CustomScenario = {
  kind: 'custom',
  name: 'fire',
  async run(ctx) {
    const rows: Row[] = [];
    // --target picks targets by row label ('switchyard-fire --accept-only') or server name (every switchyard-fire row).
    const wanted = TARGETS.filter((t) => ctx.targets.length === 0 || ctx.targets.includes(t.label ?? t.server) || ctx.targets.includes(t.server));
    for (const target of wanted) rows.push(...(await measure(ctx, target)));
    const grouped = [FIRE, REPLAY].map((scenario) => rows.filter((r) => r.scenario === scenario));
    for (const group of grouped) {
      const floor = group.find((r) => r.target === FLOOR);
      if (floor && floor.reqPerSec > 0) for (const row of group) row.ratioToBaseline = row.reqPerSec / floor.reqPerSec;
    }
    return grouped.flat();
  },
};
