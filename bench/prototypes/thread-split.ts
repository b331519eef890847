// Measurement prototype, not service code: `npm run bench:thread-split` — loads split-server.ts inline vs thread under three pinnings, one table.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { ClientJob, ClientResult } from '../autocannon-child.js';
import { killChildrenOnExit, spawnTsNode, stopChild, type Child } from '../children.js';
import { measureCommit } from './fsync-probe.js';
import { startHealthzProbe } from './healthz-probe.js';
import { formatTable, summarize, type ServerStats, type SplitRow } from './split-table.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    'few-connections': { type: 'string', default: '10' },
    'exec-us': { type: 'string', default: '500' },
    'max-queued': { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '64' },
    synchronous: { type: 'string', default: 'FULL' },
    pinnings: { type: 'string', default: 'a,b,c' },
    modes: { type: 'string', default: 'inline,thread,thread-main-writes,thread-worker-writes' },
    out: { type: 'string' },
  },
});
const durationSec = Number(values.duration);

/** taskset core lists (null: unpinned) for server and client, and the client's connections. */
interface Pinning {
  id: string;
  label: string;
  server: string | null;
  client: string | null;
  connections: number;
}
const PINNINGS: Pinning[] = [
  { id: 'a', label: 'server on core 1, autocannon on core 0', server: '1', client: '0', connections: Number(values.connections) },
  { id: 'b', label: 'server on cores 0+1, autocannon shares them', server: '0,1', client: '0,1', connections: Number(values.connections) },
  { id: 'c', label: `unpinned, autocannon with ${values['few-connections']} connections`, server: null, client: null, connections: Number(values['few-connections']) },
];

killChildrenOnExit();

function firstLine(child: Child, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.process.stdout! });
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    void child.exited.then((code) => reject(new Error(`${what} exited (${code}): ${child.stderrTail()}`)));
  });
}

async function stats(url: string): Promise<ServerStats> {
  return (await (await fetch(`${url}/stats`)).json()) as ServerStats;
}

async function measure(pinning: Pinning, mode: string): Promise<SplitRow> {
  const loadAtStart = os.loadavg()[0]!;
  const args = ['--mode', mode, '--exec-us', values['exec-us']!, '--max-queued', values['max-queued']!, '--concurrency', values.concurrency!, '--synchronous', values.synchronous!.toUpperCase()];
  const server = spawnTsNode('bench/prototypes/split-server.ts', args, pinning.server);
  try {
    const { port } = JSON.parse(await firstLine(server, 'split-server')) as { port: number };
    const url = `http://127.0.0.1:${port}`;
    const probe = startHealthzProbe(url);
    const client = spawnTsNode('bench/autocannon-child.ts', [], pinning.client);
    const job: ClientJob = {
      url, connections: pinning.connections, durationSec, warmupSec: 0,
      request: { method: 'POST', path: '/fire', headers: { 'content-type': 'application/json' }, body: '{"input":{"id":"c-1"}}', expectedStatus: 202 },
    };
    client.process.stdin!.write(`${JSON.stringify(job)}\n`);
    const result = firstLine(client, 'autocannon');
    // The window opens at the first accept, so client start-up is not counted as idle server time.
    let before = await stats(url);
    while (before.accepted === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      before = await stats(url);
    }
    const opened = performance.now();
    probe.record();
    const load = JSON.parse(await result) as ClientResult;
    const after = await stats(url);
    const seconds = (performance.now() - opened) / 1000;
    const latencies = await probe.stop();
    await stopChild(client);
    return summarize({ pinning: pinning.id, mode, load, before, after, seconds, latencies, loadAtStart, loadAtEnd: os.loadavg()[0]! });
  } finally {
    await stopChild(server);
  }
}

const commitBefore = measureCommit();
const rows: SplitRow[] = [];
for (const pinning of PINNINGS.filter((p) => values.pinnings!.split(',').includes(p.id))) {
  for (const mode of values.modes!.split(',')) {
    const row = await measure(pinning, mode);
    rows.push(row);
    process.stderr.write(`${pinning.id} ${mode}: ${JSON.stringify(row)}\n`);
  }
}
const commitAfter = measureCommit();
const ms = (c: { p50: number; p99: number }): string => `p50 ${c.p50.toFixed(2)} ms, p99 ${c.p99.toFixed(2)} ms`;
const header = [
  `one-row FULL commit on this disk: before ${ms(commitBefore)}; after ${ms(commitAfter)}`,
  `thread-split: ${durationSec} s per row, --exec-us ${values['exec-us']}, --max-queued ${values['max-queued']}, --concurrency ${values.concurrency}, synchronous=${values.synchronous!.toUpperCase()}; Node ${process.version}, ${os.cpus().length} cores`,
  ...PINNINGS.map((p) => `(${p.id}) ${p.label}, ${p.connections} connections`),
  '',
].join('\n');
const table = `${header}\n${formatTable(rows)}\n`;
process.stdout.write(table);
if (values.out) writeFileSync(values.out, table);
