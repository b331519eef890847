// Measurement prototype, not service code: turns two /stats snapshots, the client's result and the probe into one row of the thread-split table.
import type { ClientResult } from '../autocannon-child.js';
import { percentile } from './healthz-probe.js';

/** What split-server.ts answers on GET /stats (counters since boot; loop delay since the previous call). */
export interface ServerStats {
  chunks: number;
  usPerChunk: number;
  accepted: number;
  refused: number;
  completed: number;
  materializedThrough: number;
  queued: number;
  envelopes: number;
  outOfOrder: number;
  rssPeakMb: number;
  rssMb: number;
  loopDelayP99Ms: number;
  cpuMs: number;
  mainBusy: { retries: number; waitMs: number };
  workerBusy: { retries: number; waitMs: number };
  mainWriter: { commits: number; units: number; commitMs: number };
  workerWriter: { commits: number; units: number; commitMs: number };
}

export interface SplitRow {
  pinning: string;
  mode: string;
  acceptedPerSec: number;
  refusedPerSec: number;
  executionsPerSec: number;
  backlogAtEnd: number;
  healthzP50: number;
  healthzP99: number;
  probes: number;
  loopP99: number;
  busyRetriesMain: number;
  busyWaitMsMain: number;
  busyRetriesWorker: number;
  busyWaitMsWorker: number;
  envelopesPerSec: number;
  outOfOrder: number;
  rssPeakMb: number;
  cores: number;
  commitsMain: string;
  commitsWorker: string;
  fire202P99: number;
  execUs: number;
  load: string;
}

export function summarize(input: {
  pinning: string; mode: string; load: ClientResult; before: ServerStats; after: ServerStats; seconds: number; latencies: number[]; loadAtStart: number; loadAtEnd: number;
}): SplitRow {
  const { before, after, seconds } = input;
  const rate = (a: number, b: number): number => Math.round((a - b) / seconds);
  return {
    pinning: input.pinning,
    mode: input.mode,
    acceptedPerSec: rate(after.accepted, before.accepted),
    refusedPerSec: rate(after.refused, before.refused),
    executionsPerSec: rate(after.completed, before.completed),
    backlogAtEnd: after.queued,
    healthzP50: percentile(input.latencies, 50),
    healthzP99: percentile(input.latencies, 99),
    probes: input.latencies.length,
    loopP99: after.loopDelayP99Ms,
    busyRetriesMain: after.mainBusy.retries - before.mainBusy.retries,
    busyWaitMsMain: after.mainBusy.waitMs - before.mainBusy.waitMs,
    busyRetriesWorker: after.workerBusy.retries - before.workerBusy.retries,
    busyWaitMsWorker: after.workerBusy.waitMs - before.workerBusy.waitMs,
    envelopesPerSec: rate(after.envelopes, before.envelopes),
    outOfOrder: after.outOfOrder,
    rssPeakMb: after.rssPeakMb,
    cores: (after.cpuMs - before.cpuMs) / 1000 / seconds,
    commitsMain: commits(before.mainWriter, after.mainWriter, seconds),
    commitsWorker: commits(before.workerWriter, after.workerWriter, seconds),
    fire202P99: input.load.p99ms,
    execUs: Math.round(after.chunks * after.usPerChunk),
    load: `${input.loadAtStart.toFixed(2)}→${input.loadAtEnd.toFixed(2)}`,
  };
}

type WriterStats = ServerStats['mainWriter'];

/** "commits/s × units per commit, ms per commit" of one writer over the window (the ms include the fsync). */
function commits(before: WriterStats, after: WriterStats, seconds: number): string {
  const count = after.commits - before.commits;
  if (count === 0) return '–';
  return `${Math.round(count / seconds)}/s × ${Math.round((after.units - before.units) / count)}, ${((after.commitMs - before.commitMs) / count).toFixed(1)} ms`;
}

const n = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toFixed(digits) : '–');

export function formatTable(rows: readonly SplitRow[]): string {
  const head = '| pin | mode | 202/s | 429/s | executions/s | backlog at end | /healthz p50 / p99 ms (probes) | main loop delay p99 ms | fire p99 ms | SQLITE_BUSY retries (wait ms) main · worker | events fanned out/s (out of order) | commits main · worker (per s × units, ms each) | CPU cores used | RSS peak MB | load avg 1 min |';
  const lines = rows.map((r) =>
    [
      r.pinning, r.mode, n(r.acceptedPerSec), n(r.refusedPerSec), n(r.executionsPerSec), n(r.backlogAtEnd),
      `${n(r.healthzP50, 1)} / ${n(r.healthzP99, 1)} (${r.probes})`, n(r.loopP99, 1), n(r.fire202P99),
      `${r.busyRetriesMain} (${n(r.busyWaitMsMain)}) · ${r.busyRetriesWorker} (${n(r.busyWaitMsWorker)})`,
      `${n(r.envelopesPerSec)} (${r.outOfOrder})`, `${r.commitsMain} · ${r.commitsWorker}`, n(r.cores, 2), n(r.rssPeakMb), r.load,
    ].join(' | '),
  );
  return [head, `|${'---|'.repeat(15)}`, ...lines.map((line) => `| ${line} |`)].join('\n');
}
