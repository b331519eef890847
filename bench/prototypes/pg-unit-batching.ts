// Measurement, not service code: `npm run bench:pg-units` — PostgreSQL unit writer, batched vs one transaction per unit, at 1/10/100 submitters.
/*
 * Each submitter loops: submit a unit that inserts one row through its repos (one INSERT round trip), await its
 * commit, repeat, for --duration seconds. synchronous_commit is on in every run; the cluster runs once with the test
 * cluster's fsync=off and once with fsync=on (full_page_writes on), each a throwaway cluster from Debian's binaries.
 */
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { connectPostgres } from '../../storage/postgres/connection.js';
import { createPostgresUnitWriter } from '../../storage/postgres/unit-of-work.js';
import { postgresBinDir, startCluster } from '../../test/helpers/postgres-cluster.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,10,100' },
    fsync: { type: 'string', default: 'off,on' },
  },
});
const durationMs = Number(values.duration) * 1000;

interface Mode {
  name: string;
  maxBatch: number;
  maxInFlight: number;
}
const MODES: Mode[] = [
  { name: 'batched (≤64/tx), 4 in flight', maxBatch: 64, maxInFlight: 4 },
  { name: 'batched (≤64/tx), 8 in flight', maxBatch: 64, maxInFlight: 8 },
  { name: 'one tx per unit, 4 in flight', maxBatch: 1, maxInFlight: 4 },
  { name: 'one tx per unit, 8 in flight', maxBatch: 1, maxInFlight: 8 },
];

const bindRepos = (client: pg.PoolClient) => ({
  insert: (body: string) => client.query('INSERT INTO bench_units (body) VALUES ($1)', [body]),
});

async function run(url: string, mode: Mode, concurrency: number, forMs = durationMs) {
  const pool = await connectPostgres({ url, max: 10 });
  await pool.query('TRUNCATE bench_units');
  const writer = createPostgresUnitWriter({ pool, bindRepos, maxBatch: mode.maxBatch, maxInFlight: mode.maxInFlight, maxQueued: 100_000 });
  const latencies: number[] = [];
  const end = performance.now() + forMs;
  const submitter = async (n: number) => {
    while (performance.now() < end) {
      const at = performance.now();
      await writer.submit(async (tx) => void (await tx.repos.insert(`submitter ${n}`)));
      latencies.push(performance.now() - at);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, n) => submitter(n)));
  const seconds = (performance.now() - started) / 1000;
  const rows = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM bench_units')).rows[0]!.n;
  await pool.end();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2);
  return {
    unitsPerSecond: Math.round(latencies.length / seconds),
    p50: pct(0.5),
    p99: pct(0.99),
    unitsPerTx: (writer.stats.units / writer.stats.batches).toFixed(1),
    rowsOk: rows === latencies.length,
  };
}

const binDir = postgresBinDir();
if (binDir === null) throw new Error('no PostgreSQL server binaries (apt-get install postgresql-15)');
console.log(`| fsync | submitters | mode | units/s | p50 ms | p99 ms | units/tx |`);
console.log(`|---|---|---|---|---|---|---|`);
for (const fsync of values.fsync.split(',')) {
  const settings = ['synchronous_commit=on', `fsync=${fsync}`, `full_page_writes=${fsync}`];
  const cluster = await startCluster(binDir, settings);
  if (typeof cluster === 'string') throw new Error(cluster);
  try {
    const url = cluster.adminUrl;
    const pool = await connectPostgres({ url, max: 1 });
    const shown = (await pool.query<{ f: string; s: string }>("SELECT current_setting('fsync') AS f, current_setting('synchronous_commit') AS s")).rows[0]!;
    await pool.query('CREATE TABLE bench_units (id bigserial PRIMARY KEY, body text NOT NULL)');
    await pool.end();
    // A discarded second first: the first run after a cluster starts also pays cold caches and new connections.
    await run(url, MODES[0]!, 10, 1000);
    for (const concurrency of values.concurrency.split(',').map(Number)) {
      for (const mode of MODES) {
        const r = await run(url, mode, concurrency);
        if (!r.rowsOk) throw new Error('rows committed differ from units acknowledged');
        console.log(`| ${shown.f} (sync commit ${shown.s}) | ${concurrency} | ${mode.name} | ${r.unitsPerSecond} | ${r.p50} | ${r.p99} | ${r.unitsPerTx} |`);
      }
    }
  } finally {
    cluster.stop();
  }
}
