// Facts about the machine and the load client that a figure in RESULTS.md is meaningless without.
import { createRequire } from 'node:module';
import os from 'node:os';
import { detectPinning } from './children.js';
import { CLIENT_BOUND_REQ_PER_SEC } from './load.js';

export type Facts = Array<[label: string, value: string]>;

export function machineFacts(): Facts {
  const cpus = os.cpus();
  const load = os.loadavg();
  const busy = load[0] > cpus.length / 2 ? ' (busy machine: figures are low and noisy)' : '';
  return [
    ['CPU', `${cpus.length} × ${cpus[0]?.model.trim() || 'unknown'} (available parallelism ${os.availableParallelism()})`],
    ['memory', `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`],
    ['OS', `${os.type()} ${os.release()} ${os.arch()}`],
    ['Node.js', process.version],
    // Other work on these 2-core machines moves the figures more than most code changes do.
    ['load average at start', `${load.map((l) => l.toFixed(2)).join(' ')}${busy}`],
    ['pinning', detectPinning().description],
  ];
}

/** The load average once the run is over: with the one at start, it brackets what else the machine was doing. */
export function loadAtEnd(): Facts {
  return [['load average at end', os.loadavg().map((l) => l.toFixed(2)).join(' ')]];
}

export function clientFacts(connections: number, durationSec: number, warmupSec: number): Facts {
  const { version } = createRequire(import.meta.url)('autocannon/package.json') as { version: string };
  return [
    ['client', `autocannon ${version}, one process on one core, ${connections} connections, pipelining 1, ${durationSec} s per target after ${warmupSec} s warm-up`],
    [
      'client limits',
      `one autocannon core tops out near 80k req/s (PERF-NOTES), so rows above ${CLIENT_BOUND_REQ_PER_SEC / 1000}k req/s are marked client-bound: ` +
        'they measure the client, not the server; latency is recorded in whole milliseconds',
    ],
  ];
}
