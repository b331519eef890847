// CPU per thread of the fire bench's server under a closed-loop keyed-fire load: which thread spends what (issue 12).
// A prototype, not service code: nothing in runtime/, storage/ or http/ imports it.
/*
 * node --import tsx bench/prototypes/thread-cpu.ts [switchyard-fire.ts args, e.g. --execution thread --unbounded]
 *   env CORES (taskset list for the server, default "0,1"), CONN (connections, default 50), PROF (a directory:
 *   the server runs under `node --cpu-prof`, one profile per thread, for cpu-profile-top.ts).
 * Starts bench/servers/switchyard-fire.ts, loads POST /api/v1/triggers/fire (fresh Idempotency-Key each) for 10 s
 * from the bench's autocannon child on core 0, and prints the answers by status and, per thread of the server with
 * more than 0.2 s, the CPU seconds it used during the load (utime + stime from /proc/<pid>/task/<tid>/stat).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { killChildrenOnExit, spawnNode, spawnTsNode, stopChild, type Child } from '../children.js';

killChildrenOnExit();
const cores = process.env.CORES ?? '0,1';
const connections = Number(process.env.CONN ?? 50);
const profile = process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : [];

const firstLine = (child: Child): Promise<string> => new Promise((resolve) => createInterface({ input: child.process.stdout! }).once('line', resolve));

/** CPU seconds per thread of `pid`, with the thread's name. */
function threads(pid: number): Map<string, { name: string; cpu: number }> {
  return new Map(readdirSync(`/proc/${pid}/task`).map((tid) => {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    return [tid, { name, cpu: (Number(fields[11]) + Number(fields[12])) / 100 }];
  }));
}

const server = spawnNode([...profile, '--import', 'tsx', 'bench/servers/switchyard-fire.ts', ...process.argv.slice(2)], cores);
const ready = JSON.parse(await firstLine(server)) as { port: number; apiKey: string; triggerId: string };
const before = threads(server.pid);
const client = spawnTsNode('bench/autocannon-child.ts', [], 0);
const request = {
  method: 'POST',
  path: '/api/v1/triggers/fire',
  headers: { authorization: `Bearer ${ready.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'k-[<id>]' },
  body: JSON.stringify({ triggerId: ready.triggerId, input: { id: 'c-1' } }),
  expectedStatus: 202,
  idReplacement: true,
};
client.process.stdin!.write(`${JSON.stringify({ url: `http://127.0.0.1:${ready.port}`, connections, durationSec: 10, warmupSec: 0, request })}\n`);
const result = JSON.parse(await firstLine(client)) as { reqPerSec: number; p99ms: number; statusCodes: Record<string, number> };
const after = threads(server.pid);
const metrics = await (await fetch(`http://127.0.0.1:${ready.port}/metrics`)).text();
const counters = metrics.split('\n').filter((line) => /^switchyard_executions_started_total|^switchyard_execution_refused_total|^switchyard_group_commit_(busy_retries|batches|units)_total/.test(line));
console.log(`req/s ${result.reqPerSec.toFixed(0)} p99 ${result.p99ms} ms ${JSON.stringify(result.statusCodes)}; ${counters.join('; ')}`);
for (const [tid, now] of after) {
  const used = now.cpu - (before.get(tid)?.cpu ?? 0);
  if (used > 0.2) console.log(`  thread ${tid} (${now.name}): ${used.toFixed(1)} s CPU in 10 s`);
}
await stopChild(server);
await stopChild(client);
process.exit(0);
