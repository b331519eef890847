// Where a PostgreSQL fire's time goes: statements, commits, WAL flushes and wait events per accepted fire (`npm run bench:pg-profile`).
/*
 * Starts a durable throwaway cluster with pg_stat_statements, the real `switchyard start --demo` on it, measures the
 * idle background for a few seconds, then sends keyed fires for `--seconds` at `--connections` in flight, waits for
 * every execution to settle, and prints per accepted fire: statements by text (calls, mean ms), transactions, WAL
 * flushes, and the wait events pg_stat_activity showed while it ran. `--workers N` runs N processes; `--cpu-prof DIR`
 * writes a CPU profile of the serving process(es) there. Counts include the runs of both demo subscribers. A
 * measurement only: nothing in runtime/, storage/ or http/ imports it.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startCliService } from '../cli-service.js';
import { postgresBinDir, startCluster } from '../../test/helpers/postgres-cluster.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    workers: { type: 'string', default: '1' },
    top: { type: 'string', default: '30' },
    'cpu-prof': { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const workers = Number(values.workers);

const binDir = postgresBinDir();
if (binDir === null) throw new Error('no PostgreSQL server binaries');
const settings = ['fsync=on', 'synchronous_commit=on', 'full_page_writes=on', 'shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'pg_stat_statements.max=5000'];
const cluster = await startCluster(binDir, settings);
if (typeof cluster === 'string') throw new Error(cluster);
const admin = new pg.Client({ connectionString: cluster.adminUrl });
await admin.connect();
await admin.query('CREATE DATABASE profile');
const url = cluster.adminUrl.replace(/\/postgres$/, '/profile');
const db = new pg.Client({ connectionString: url });
await db.connect();
await db.query('CREATE EXTENSION pg_stat_statements');
const cpuProf = values['cpu-prof'];
const service = await startCliService({ databaseUrl: url, workers, nodeArgs: cpuProf === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] });

interface Counters { xacts: number; walSync: number; walRecords: number; statements: Map<string, { calls: number; ms: number }> }

async function counters(): Promise<Counters> {
  const xacts = (await db.query<{ n: string }>("SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = 'profile'")).rows[0]!.n;
  const wal = (await db.query<{ wal_sync: string; wal_records: string }>('SELECT wal_sync, wal_records FROM pg_stat_wal')).rows[0]!;
  const rows = (await db.query<{ query: string; calls: string; ms: number }>(
    "SELECT query, calls, total_exec_time AS ms FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'profile'",
  )).rows;
  const statements = new Map<string, { calls: number; ms: number }>();
  for (const row of rows) {
    const key = row.query.replace(/\s+/g, ' ').slice(0, 160);
    const seen = statements.get(key) ?? { calls: 0, ms: 0 };
    statements.set(key, { calls: seen.calls + Number(row.calls), ms: seen.ms + row.ms });
  }
  return { xacts: Number(xacts), walSync: Number(wal.wal_sync), walRecords: Number(wal.wal_records), statements };
}

function delta(after: Counters, before: Counters): Counters {
  const statements = new Map<string, { calls: number; ms: number }>();
  for (const [key, value] of after.statements) {
    const prior = before.statements.get(key) ?? { calls: 0, ms: 0 };
    if (value.calls > prior.calls) statements.set(key, { calls: value.calls - prior.calls, ms: value.ms - prior.ms });
  }
  return { xacts: after.xacts - before.xacts, walSync: after.walSync - before.walSync, walRecords: after.walRecords - before.walRecords, statements };
}

const total = (c: Counters): number => [...c.statements.values()].reduce((sum, s) => sum + s.calls, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Idle background (lease renewals, takeover scans, timers) over 5 s, to subtract from the load window.
await sleep(2000);
const idle0 = await counters();
await sleep(5000);
const idle = delta(await counters(), idle0);
const idlePerSecond = total(idle) / 5;

const { apiKey, triggerId } = service.server.ready;
const start = await counters();
const waits = new Map<string, number>();
let samples = 0;
let accepted = 0;
let refused = 0;
let n = 0;
const deadline = Date.now() + seconds * 1000;
const began = Date.now();
async function client(): Promise<void> {
  while (Date.now() < deadline) {
    const response = await fetch(`${service.server.url}/api/v1/triggers/fire`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': `profile-${process.pid}-${n++}` },
      body: JSON.stringify({ triggerId, input: { prompt: 'How do I fire a trigger?' } }),
    });
    await response.arrayBuffer();
    if (response.status === 202) accepted += 1;
    else refused += 1;
  }
}
const sampler = setInterval(() => {
  void db.query<{ w: string; n: string }>(
    "SELECT state || coalesce(' ' || wait_event_type || ':' || wait_event, '') AS w, count(*) AS n FROM pg_stat_activity WHERE datname = 'profile' AND pid <> pg_backend_pid() GROUP BY 1",
  ).then(({ rows }) => {
    samples += 1;
    for (const row of rows) waits.set(row.w, (waits.get(row.w) ?? 0) + Number(row.n));
  });
}, 100);
await Promise.all(Array.from({ length: connections }, client));
const loadSeconds = (Date.now() - began) / 1000;
clearInterval(sampler);
// Let every accepted execution settle (the demo's agent and flow), then a little more for trailing writes.
for (let i = 0; i < 600; i++) {
  const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM executions WHERE status IN ('queued', 'running', 'resume_queued')");
  if (Number(rows[0]!.n) === 0) break;
  await sleep(500);
}
const drainedAt = Date.now();
await sleep(1000);
const load = delta(await counters(), start);
const window = (Date.now() - began) / 1000;
const background = idlePerSecond * window;

const perFire = (x: number) => (x / accepted).toFixed(2);
console.log(`workers ${workers}, ${connections} connections, ${loadSeconds.toFixed(1)} s of load, drained ${((drainedAt - began) / 1000).toFixed(1)} s after start`);
console.log(`accepted ${accepted} (${(accepted / loadSeconds).toFixed(1)}/s), refused ${refused}`);
console.log(`idle background: ${idlePerSecond.toFixed(1)} statements/s, ${(idle.xacts / 5).toFixed(1)} xacts/s`);
console.log(`per accepted fire (background over the window subtracted from statements): statements ${perFire(total(load) - background)}, xacts ${perFire(load.xacts)}, WAL syncs ${perFire(load.walSync)}, WAL records ${perFire(load.walRecords)}`);
// Foreign-key checks run inside other statements (`SELECT 1 FROM ONLY … FOR KEY SHARE`): counted with track=all, no round trip.
const nested = [...load.statements.entries()].filter(([query]) => query.includes('FROM ONLY')).reduce((sum, [, s]) => sum + s.calls, 0);
console.log(`top-level statements per fire (foreign-key checks left out): ${perFire(total(load) - background - nested)}`);
console.log(`server time in statements per fire: ${perFire([...load.statements.values()].reduce((s, v) => s + v.ms, 0))} ms`);
console.log('\ncalls/fire  mean ms  statement');
const top = [...load.statements.entries()].sort((a, b) => b[1].calls - a[1].calls).slice(0, Number(values.top));
for (const [query, { calls, ms }] of top) console.log(`${perFire(calls).padStart(9)}  ${(ms / calls).toFixed(3).padStart(7)}  ${query}`);
console.log(`\nwait events (mean backends over ${samples} samples):`);
for (const [event, count] of [...waits.entries()].sort((a, b) => b[1] - a[1])) console.log(`  ${(count / samples).toFixed(2).padStart(6)}  ${event}`);

// A CPU profile is written at exit: give the drain more time than stop()'s grace before it would SIGKILL.
const pid = service.servingPids.length === 1 ? service.servingPids[0]! : null;
if (cpuProf !== undefined && pid !== null) {
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 120 && existsSync(`/proc/${pid}`); i++) await sleep(500);
}
await service.stop();
await db.end();
await admin.end();
cluster.stop();
