// Accept-path A/B profiler (issue 12): the fire bench's `switchyard-fire --accept-only` keyed fire, measured as CPU
// time per answer of the server process, from one or more source trees, alternating, beside a bare uWS hello-world.
// A prototype, not service code: nothing in runtime/, storage/ or http/ imports it.
/*
 * node --import tsx bench/prototypes/accept-profile.ts [--root A --root B ...] [--rounds 2] [--duration 15]
 *   [--warmup 15] [--connections 50] [--profile DIR] [--no-baseline] [--replay]
 *
 * Each round starts, for every --root (default: this tree), that tree's bench/servers/switchyard-fire.ts
 * --accept-only pinned to the server core, loads it with keyed fires (fresh Idempotency-Key each) for --warmup
 * seconds (not measured), then for --duration seconds while reading the server's CPU time from /proc/<pid>/stat
 * (user + system) before and after; CPU µs per answer = that delta / 202s answered. Then the bare uWS baseline, same
 * request. With --profile DIR the switchyard servers run under `node --cpu-prof` (profile written at exit into
 * DIR/<round>-<root index>/), and the measured window's monotonic start/end (µs, the clock V8's profile uses) is
 * written beside it as window.json, for bench/prototypes/cpu-profile-top.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { detectPinning, killChildrenOnExit, spawnNode, spawnTsNode, stopChild, type Child } from '../children.js';
import type { ClientJob, ClientResult } from '../autocannon-child.js';
import type { LoadRequest } from '../scenario.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '1' },
    duration: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '15' },
    connections: { type: 'string', default: '50' },
    profile: { type: 'string' },
    'no-baseline': { type: 'boolean', default: false },
    replay: { type: 'boolean', default: false },
  },
});
const roots = (values.root ?? ['.']).map((r) => resolve(r));
const rounds = Number(values.rounds);
const durationSec = Number(values.duration);
const warmupSec = Number(values.warmup);
const connections = Number(values.connections);
killChildrenOnExit();
const pin = detectPinning();

interface Ready {
  port: number;
  apiKey?: string;
  triggerId?: string;
}

function spawnServer(root: string, script: string, args: string[], profileDir: string | null): Child {
  const nodeArgs = [...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), '--import', 'tsx', join(root, script), ...args];
  // The server's own tree resolves its imports; cwd stays this repo (bench servers take paths relative to REPO_ROOT,
  // so a second tree's server reads the same manifest through its own REPO_ROOT).
  return spawnNode(nodeArgs, pin.serverCore);
}

async function readyOf(child: Child): Promise<Ready> {
  const lines = createInterface({ input: child.process.stdout! });
  const line = await new Promise<string>((resolveLine, reject) => {
    lines.once('line', resolveLine);
    void child.exited.then((code) => reject(new Error(`server exited ${code}: ${child.stderrTail()}`)));
  });
  return JSON.parse(line) as Ready;
}

function cpuSec(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function runClient(job: ClientJob): Promise<ClientResult> {
  const child = spawnTsNode('bench/autocannon-child.ts', [], pin.clientCore);
  child.process.stdin!.write(`${JSON.stringify(job)}\n`);
  const lines = createInterface({ input: child.process.stdout! });
  const line = await new Promise<string | null>((r) => {
    lines.once('line', r);
    lines.once('close', () => r(null));
  });
  await child.exited;
  if (line === null) throw new Error(`client failed: ${child.stderrTail()}`);
  return JSON.parse(line) as ClientResult;
}

function fireRequest(ready: Ready, bare: boolean): LoadRequest {
  return {
    method: 'POST',
    path: '/api/v1/triggers/fire',
    headers: {
      ...(bare ? {} : { authorization: `Bearer ${ready.apiKey}` }),
      'content-type': 'application/json',
      // --replay: one key for every request, so after the first each one is an idempotent replay.
      'idempotency-key': values.replay ? 'bench-replay-1' : 'bench-[<id>]',
    },
    body: JSON.stringify({ triggerId: bare ? '00000000-0000-7000-8000-000000000000' : ready.triggerId, input: { id: 'c-1' } }),
    expectedStatus: bare ? 200 : 202,
    idReplacement: !values.replay,
  };
}

interface Measured {
  label: string;
  reqPerSec: number;
  p99ms: number;
  cpuUsPerAnswer: number;
  cpuShare: number;
  expected: number;
  other: string;
}

async function measure(label: string, child: Child, ready: Ready, bare: boolean, windowFile: string | null): Promise<Measured> {
  const request = fireRequest(ready, bare);
  const url = `http://127.0.0.1:${ready.port}`;
  if (warmupSec > 0) await runClient({ url, connections, durationSec: warmupSec, warmupSec: 0, request });
  const before = cpuSec(child.pid);
  const t0 = process.hrtime.bigint();
  const result = await runClient({ url, connections, durationSec, warmupSec: 0, request });
  const t1 = process.hrtime.bigint();
  const after = cpuSec(child.pid);
  if (windowFile) writeFileSync(windowFile, JSON.stringify({ startUs: Number(t0 / 1000n), endUs: Number(t1 / 1000n) }));
  const expected = result.statusCodes[String(request.expectedStatus)] ?? 0;
  const wallSec = Number(t1 - t0) / 1e9;
  const other = Object.entries(result.statusCodes).filter(([code]) => code !== String(request.expectedStatus)).map(([c, n]) => `${c}×${n}`).join(' ');
  return {
    label,
    reqPerSec: result.reqPerSec,
    p99ms: result.p99ms,
    cpuUsPerAnswer: expected > 0 ? ((after - before) * 1e6) / expected : NaN,
    cpuShare: (after - before) / wallSec,
    expected,
    other,
  };
}

const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
process.stderr.write(`accept-profile: ${roots.length} tree(s), ${rounds} round(s), ${warmupSec}+${durationSec} s, ${connections} connections; ${pin.description}\n`);
const all: Measured[] = [];
for (let round = 1; round <= rounds; round += 1) {
  for (const [index, root] of roots.entries()) {
    const profileDir = values.profile ? resolve(values.profile, `${round}-${index}`) : null;
    if (profileDir) mkdirSync(profileDir, { recursive: true });
    const child = spawnServer(root, 'bench/servers/switchyard-fire.ts', ['--accept-only'], profileDir);
    try {
      const ready = await readyOf(child);
      const startLoad = load();
      const row = await measure(`r${round} ${index}:${root}`, child, ready, false, profileDir ? join(profileDir, 'window.json') : null);
      all.push(row);
      process.stderr.write(`${row.label}: ${row.reqPerSec.toFixed(0)} req/s p99 ${row.p99ms} ms, ${row.cpuUsPerAnswer.toFixed(0)} µs CPU/answer, CPU ${(row.cpuShare * 100).toFixed(0)} % ${row.other} (load ${startLoad} → ${load()})\n`);
    } finally {
      await stopChild(child, 20_000);
    }
  }
  if (!values['no-baseline']) {
    const child = spawnTsNode('bench/servers/baseline-uws.ts', [], pin.serverCore);
    try {
      const ready = await readyOf(child);
      const row = await measure(`r${round} baseline-uws`, child, ready, true, null);
      all.push(row);
      process.stderr.write(`${row.label}: ${row.reqPerSec.toFixed(0)} req/s p99 ${row.p99ms} ms, ${row.cpuUsPerAnswer.toFixed(1)} µs CPU/answer, CPU ${(row.cpuShare * 100).toFixed(0)} % (load ${load()})\n`);
    } finally {
      await stopChild(child);
    }
  }
}
process.stdout.write(`${JSON.stringify(all, null, 1)}\n`);
