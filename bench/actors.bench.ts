// Actor runtime micro-bench: spawn cost vs raw XState, memory per resident actor, rehydration, snapshot write rates.
/*
 * `node --import tsx bench/actors.bench.ts [--quick] [--actors N]` prints a markdown table (bench/table.ts);
 * `run()` returns the same rows for bench/run.ts (`actorsScenario`). Add --expose-gc for the most stable
 * memory figure; without it the script enables gc through v8 flags. Everything runs in this process, on a
 * 2 vCPU box shared with other work: compare rows of one run, not across runs.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { assign, createActor, emit, setup, type AnyActor, type AnyStateMachine } from 'xstate';
import { createActorRegistry } from '../runtime/actors/index.js';
import { ManualClock } from '../runtime/clock.js';
import type { ActorSnapshot } from '../storage/records/snapshots.js';
import { openStore, type Store } from '../storage/store.js';
import type { CustomScenario, Row } from './scenario.js';
import { formatTable } from './table.js';

/** Shaped like a session turn (ids, timestamps, a pending approval slot) so snapshots have a realistic size. */
const turnMachine = setup({
  types: {
    input: {} as { executionId: string; sessionId: string },
    context: {} as {
      executionId: string; sessionId: string; entry: string | null; queuedAt: number | null; startedAt: number | null;
      pendingApproval: { approvalId: string; toolName: string } | null; failure: string | null; settledAt: number | null;
    },
    events: {} as { type: 'OPEN'; now: number } | { type: 'START'; now: number } | { type: 'COMPLETE'; now: number },
  },
}).createMachine({
  id: 'bench-turn',
  initial: 'idle',
  context: ({ input }) => ({ ...input, entry: null, queuedAt: null, startedAt: null, pendingApproval: null, failure: null, settledAt: null }),
  states: {
    idle: { on: { OPEN: { target: 'queued', actions: [assign(({ event }) => ({ entry: 'open', queuedAt: event.now })), emit({ type: 'turn.queued' })] } } },
    queued: { on: { START: { target: 'running', actions: assign(({ event }) => ({ startedAt: event.now })) } } },
    running: { on: { COMPLETE: 'completed' } },
    completed: { type: 'final' },
  },
});

const input = (i: number) => ({ executionId: `01970000-0000-7000-8000-${String(i).padStart(12, '0')}`, sessionId: `s-${i}` });
const OPEN = { type: 'OPEN', now: Date.UTC(2026, 0, 1) } as const;
/** Requests answered per event-loop turn: each wave's units share group commits, like concurrent HTTP requests. */
const WAVE = 500;

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function row(scenario: string, target: string, count: number, totalMs: number, latencies: number[], note: string, baseline?: Row): Row {
  const sorted = latencies.sort((a, b) => a - b);
  const reqPerSec = count / (totalMs / 1000);
  return {
    scenario, target, reqPerSec, p50ms: quantile(sorted, 0.5), p99ms: quantile(sorted, 0.99),
    ratioToBaseline: baseline === undefined ? 1 : reqPerSec / baseline.reqPerSec, errors: 0, non2xx: 0, note,
  };
}

function gcFunction(): (() => void) | null {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return null;
  }
}

function heapAfterGc(gc: (() => void) | null): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

function registryOn(store: Store, idleMs = 3_600_000) {
  const clock = new ManualClock();
  const registry = createActorRegistry({ store, clock, idleMs, logger: { warn() {}, error() {} } });
  const turns = registry.register('bench-turn', { machine: turnMachine, version: 1, onFailure: () => {} });
  return { registry, turns, clock };
}

/** Spawns `count` actors through the registry, WAVE at a time; returns per-spawn latencies (call to commit). */
async function spawnAll(turns: ReturnType<typeof registryOn>['turns'], from: number, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let start = from; start < from + count; start += WAVE) {
    const wave: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(start + WAVE, from + count); i += 1) {
      const began = performance.now();
      wave.push(turns.spawn(input(i).executionId, input(i), { event: OPEN }).then(() => latencies.push(performance.now() - began)));
    }
    await Promise.all(wave);
  }
  return latencies;
}

function rawCreate(count: number, keep: AnyActor[] | null): { ms: number; latencies: number[] } {
  const latencies: number[] = [];
  const began = performance.now();
  for (let i = 0; i < count; i += 1) {
    const t0 = performance.now();
    const actor = createActor(turnMachine, { input: input(i) });
    actor.subscribe({ error() {} });
    actor.start();
    actor.send(OPEN);
    latencies.push(performance.now() - t0);
    keep?.push(actor);
  }
  return { ms: performance.now() - began, latencies };
}

async function spawnCost(dir: string, n: number): Promise<Row[]> {
  const scenario = 'actors: create+start (+ snapshot)';
  rawCreate(Math.min(n, 2_000), null); // warm-up
  const raw = rawCreate(n, null);
  const baseline = row(scenario, 'xstate createActor+start+send', n, raw.ms, raw.latencies, 'no persistence');
  const rows = [baseline];
  for (const [label, path] of [[':memory:', ':memory:'], ['file, synchronous=FULL', join(dir, 'spawn.db')]] as const) {
    const store = openStore({ path });
    const { registry, turns } = registryOn(store);
    const began = performance.now();
    const latencies = await spawnAll(turns, 0, n);
    const ms = performance.now() - began;
    rows.push(row(scenario, `registry.spawn, ${label}`, n, ms, latencies, `snapshot committed before answer; ${WAVE} per tick; p = call to commit`, baseline));
    registry.close();
    store.close();
  }
  return rows;
}

async function memoryPerActor(n: number): Promise<Row[]> {
  const scenario = `actors: heap per resident actor @${n}`;
  const gc = gcFunction();
  const gcNote = gc ? 'after gc' : 'no gc available';
  const keep: AnyActor[] = [];
  const before = heapAfterGc(gc);
  const raw = rawCreate(n, keep);
  const rawBytes = (heapAfterGc(gc) - before) / n;
  const baseline = row(scenario, 'xstate actors kept in an array', n, raw.ms, raw.latencies, `${(rawBytes / 1024).toFixed(2)} KB heap/actor (${gcNote})`);
  keep.length = 0;

  const store = openStore({ path: ':memory:' });
  const { registry, turns } = registryOn(store);
  const start = heapAfterGc(gc);
  const began = performance.now();
  const latencies = await spawnAll(turns, 0, n);
  const ms = performance.now() - began;
  const bytes = (heapAfterGc(gc) - start) / n;
  const resident = registry.residentCount;
  registry.close();
  store.close();
  return [
    baseline,
    row(scenario, 'registry (resident snapshots)', n, ms, latencies, `${(bytes / 1024).toFixed(2)} KB heap/actor, ${resident} resident (${gcNote})`, baseline),
  ];
}

async function rehydration(n: number): Promise<Row[]> {
  const scenario = 'actors: read back (snapshot JSON -> snapshot)';
  const store = openStore({ path: ':memory:' });
  const { registry, turns, clock } = registryOn(store, 1_000);
  await spawnAll(turns, 0, n);
  const jsons = Array.from({ length: n }, (_, i) => store.repos.snapshots.get(input(i).executionId)!.snapshot);

  const rawLatencies: number[] = [];
  const rawBegan = performance.now();
  for (const json of jsons) {
    const t0 = performance.now();
    // Input is unused when restoring a snapshot; the untyped machine spares inventing one.
    const actor = createActor(turnMachine as AnyStateMachine, { snapshot: JSON.parse(json) as never });
    actor.subscribe({ error() {} });
    actor.start();
    rawLatencies.push(performance.now() - t0);
  }
  const baseline = row(scenario, 'JSON.parse + createActor + start', n, performance.now() - rawBegan, rawLatencies, 'no DB read');

  clock.advance(2_000); // passivates every actor
  const passivated = registry.residentCount === 0;
  const latencies: number[] = [];
  const began = performance.now();
  for (let i = 0; i < n; i += 1) {
    const t0 = performance.now();
    turns.peek(input(i).executionId);
    latencies.push(performance.now() - t0);
  }
  const ms = performance.now() - began;
  registry.close();
  store.close();
  return [baseline, row(scenario, 'registry.peek after passivation', n, ms, latencies, `row read + version check + restore${passivated ? '' : ' (NOT passivated)'}`, baseline)];
}

function snapshotRows(n: number, json: string): ActorSnapshot[] {
  return Array.from({ length: n }, (_, i) => ({
    actorId: input(i).executionId, machine: 'bench-turn', machineVersion: 1, status: 'active' as const, snapshot: json, updatedAt: i,
  }));
}

/** The raw statement's named parameters, built before timing so the baseline measures SQLite alone. */
type RawParams = { actor_id: string; machine: string; machine_version: number; status: string; snapshot: string; updated_at: number };
const rawParams = (r: ActorSnapshot): RawParams =>
  ({ actor_id: r.actorId, machine: r.machine, machine_version: r.machineVersion, status: r.status, snapshot: r.snapshot, updated_at: r.updatedAt });

const UPSERT = `INSERT INTO actor_snapshots (actor_id, machine, machine_version, status, snapshot, updated_at)
  VALUES (@actor_id, @machine, @machine_version, @status, @snapshot, @updated_at)
  ON CONFLICT (actor_id) DO UPDATE SET machine_version = excluded.machine_version, status = excluded.status,
    snapshot = excluded.snapshot, updated_at = excluded.updated_at WHERE actor_snapshots.machine = excluded.machine`;

async function snapshotWrites(dir: string, n: number, budgetMs: number): Promise<Row[]> {
  const scenario = 'snapshot writes (WAL, synchronous=FULL)';
  const sample = createActor(turnMachine, { input: input(0) }).start();
  sample.send(OPEN);
  const json = JSON.stringify(sample.getPersistedSnapshot());
  const rows = snapshotRows(n, json);
  const size = `${json.length} B snapshot`;

  // Raw better-sqlite3 on its own file with the same table, pragmas and statement.
  const rawDb = new Database(join(dir, 'raw.db'));
  rawDb.pragma('journal_mode = WAL');
  rawDb.pragma('synchronous = FULL');
  rawDb.exec(`CREATE TABLE actor_snapshots (actor_id TEXT PRIMARY KEY, machine TEXT NOT NULL, machine_version INTEGER NOT NULL,
    status TEXT NOT NULL, snapshot TEXT NOT NULL, updated_at INTEGER NOT NULL) STRICT`);
  const upsert = rawDb.prepare(UPSERT);
  const one = rawDb.transaction((r: RawParams) => upsert.run(r));
  const many = rawDb.transaction((batch: RawParams[]) => { for (const r of batch) upsert.run(r); });
  const raw = rows.map(rawParams);

  // One fsync per row: bounded by time as well, since a busy disk makes each commit take milliseconds.
  const singleLatencies: number[] = [];
  let began = performance.now();
  for (const r of raw) {
    const t0 = performance.now();
    one(r);
    singleLatencies.push(performance.now() - t0);
    if (t0 - began > budgetMs) break;
  }
  const single = singleLatencies.length;
  const baseline = row(scenario, 'raw better-sqlite3, 1 row per transaction', single, performance.now() - began, singleLatencies, `${size}; ${single} rows`);

  const batchLatencies: number[] = [];
  began = performance.now();
  for (let i = 0; i < n; i += WAVE) {
    const t0 = performance.now();
    many(raw.slice(i, i + WAVE));
    const ms = performance.now() - t0;
    for (let j = i; j < Math.min(i + WAVE, n); j += 1) batchLatencies.push(ms);
  }
  const batched = row(scenario, `raw better-sqlite3, ${WAVE} rows per transaction`, n, performance.now() - began, batchLatencies, `${size}; p = its batch`, baseline);
  rawDb.close();

  const store = openStore({ path: join(dir, 'writer.db') });
  const latencies: number[] = [];
  began = performance.now();
  for (let i = 0; i < n; i += WAVE) {
    await Promise.all(
      rows.slice(i, i + WAVE).map((r) => {
        const t0 = performance.now();
        return store.writer.submit(() => store.repos.snapshots.upsert(r)).then(() => latencies.push(performance.now() - t0));
      }),
    );
  }
  const ms = performance.now() - began;
  const { batches, units } = store.writer.stats;
  store.close();
  return [baseline, batched, row(scenario, 'group-commit writer (repo upsert)', n, ms, latencies, `${size}; ${(units / batches).toFixed(0)} units/commit; p = submit to commit`, baseline)];
}

export interface ActorsBenchOptions {
  quick?: boolean;
  /** Resident actors for the memory figure (default 100,000; quick 10,000). */
  actors?: number;
}

export async function run(options: ActorsBenchOptions = {}): Promise<Row[]> {
  const quick = options.quick ?? false;
  const ops = quick ? 2_000 : 20_000;
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-actors-bench-'));
  try {
    return [
      ...(await spawnCost(dir, ops)),
      ...(await memoryPerActor(options.actors ?? (quick ? 10_000 : 100_000))),
      ...(await rehydration(ops)),
      ...(await snapshotWrites(dir, quick ? 2_000 : 10_000, quick ? 1_000 : 5_000)),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** For bench/run.ts: one entry in its scenario list. */
export const actorsScenario: CustomScenario = { kind: 'custom', name: 'actors', run: (ctx) => run({ quick: ctx.quick }) };

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, actors: { type: 'string' } } });
  const actors = values.actors === undefined ? undefined : Number(values.actors);
  if (actors !== undefined && !(Number.isInteger(actors) && actors > 0 && actors <= 1_000_000)) throw new Error('--actors must be 1..1000000');
  const began = performance.now();
  const rows = await run({ quick: values.quick, actors });
  process.stdout.write(`${formatTable(rows)}\n\nnode ${process.version}, ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
}
