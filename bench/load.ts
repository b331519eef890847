// Loads one running server from the pinned autocannon child and turns its result into a table row.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { detectPinning, spawnTsNode, stopChild } from './children.js';
import { serverCpuSeconds } from './server-process.js';
import type { ClientJob, ClientResult } from './autocannon-child.js';
import type { LoadRequest, Row, RunningServer } from './scenario.js';

/** PERF-NOTES: one autocannon core tops out near 80k req/s; above ~60k a figure is the client's, not the server's. */
export const CLIENT_BOUND_REQ_PER_SEC = 60_000;
const PROBE_TIMEOUT_MS = 5_000;
/** Client start-up and result hand-back on top of warm-up + duration before the client is killed. */
const CLIENT_SLACK_MS = 20_000;

export interface LoadOptions {
  connections: number;
  durationSec: number;
  warmupSec: number;
}

export async function loadServer(scenario: string, server: RunningServer, request: LoadRequest, options: LoadOptions): Promise<Row> {
  const url = new URL(request.path, server.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`load tests run only against 127.0.0.1, not ${url.hostname}`);
  await probe(url, request);
  const job: ClientJob = { url: server.url, connections: options.connections, durationSec: options.durationSec, warmupSec: options.warmupSec, request };
  const cpuBefore = serverCpuSeconds(server);
  const result = await runClient(job);
  const cpu = cpuOf(server, cpuBefore, options.warmupSec + options.durationSec, result.reqPerSec);
  const expected = request.expectedStatus ?? 200;
  // The curve behind the steadiness note, for reading warm-up and decay (stderr: the table keeps only the ratio).
  if (request.steadiness) process.stderr.write(`${scenario} / ${server.name}: ${expected}s per second ${result.expectedPerSecond.join(' ')}\n`);
  const bounded = Object.entries(result.statusCodes).filter(([code]) => request.boundedStatuses?.includes(Number(code)));
  const unexpected = Object.entries(result.statusCodes).filter(([code]) => Number(code) !== expected && !request.boundedStatuses?.includes(Number(code)));
  const answered = Object.values(result.statusCodes).reduce((sum, n) => sum + n, 0);
  const expectedRate = answered > 0 ? (result.reqPerSec * (result.statusCodes[String(expected)] ?? 0)) / answered : 0;
  const notes = [
    request.steadiness ? steadiness(result.expectedPerSecond, options.durationSec) : '',
    cpu,
    bounded.length > 0 ? `${expected}s: ${Math.round(expectedRate)}/s; refused by the queue bound: ${bounded.map(([code, count]) => `${code}×${count}`).join(' ')}` : '',
    result.reqPerSec > CLIENT_BOUND_REQ_PER_SEC ? 'client-bound' : '',
    result.timeouts > 0 ? `${result.timeouts} timeouts` : '',
    unexpected.length > 0 ? `unexpected ${unexpected.map(([code, count]) => `${code}×${count}`).join(' ')}` : '',
  ].filter(Boolean);
  return {
    scenario,
    target: server.name,
    reqPerSec: result.reqPerSec,
    p50ms: result.p50ms,
    p99ms: result.p99ms,
    ratioToBaseline: null,
    errors: result.errors,
    non2xx: result.non2xx,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

/**
 * Issue 12's stability goal: the rate of expected answers in the last 10 s of a run over the first 10 s (a third of
 * the run each when it is shorter than 30 s). Below 0.9 the service slows down as it works (history, backlog).
 */
export function steadiness(perSecond: readonly number[], durationSec: number): string {
  const window = Math.min(10, Math.floor(durationSec / 3));
  if (window < 1 || perSecond.length < durationSec - 1) return '';
  const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
  const first = sum(perSecond.slice(0, window));
  const last = sum(perSecond.slice(durationSec - window, durationSec));
  return first > 0 ? `last ${window} s / first ${window} s: ${(last / first).toFixed(2)}` : '';
}

/**
 * The server's CPU share while loaded (warm-up included; the client's start-up leaves the server idle) and that share
 * per answer: on a shared, busy box the server gets less than its core, so CPU per answer compares rows better than
 * req/s alone. Empty without /proc.
 */
function cpuOf(server: RunningServer, before: number | null, loadedSec: number, reqPerSec: number): string {
  const after = serverCpuSeconds(server);
  if (before === null || after === null || reqPerSec <= 0) return '';
  const share = (after - before) / loadedSec;
  return `server CPU ${Math.round(share * 100)} %, ${Math.round((share * 1e6) / reqPerSec)} µs/answer`;
}

/** One request before the load: a wrong route, key or seed fails here instead of producing a fast table of 404s. */
async function probe(url: URL, request: LoadRequest): Promise<void> {
  const expected = request.expectedStatus ?? 200;
  const id = randomUUID();
  const fresh = (text: string): string => (request.idReplacement ? text.replaceAll('[<id>]', id) : text);
  const response = await fetch(url, {
    method: request.method ?? 'GET',
    headers: Object.fromEntries(Object.entries(request.headers ?? {}).map(([name, value]) => [name, fresh(value)])),
    body: request.body === undefined ? undefined : fresh(request.body),
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(`probe ${request.method ?? 'GET'} ${url.pathname} answered ${response.status}, expected ${expected}: ${text.slice(0, 300)}`);
  }
}

async function runClient(job: ClientJob): Promise<ClientResult> {
  const child = spawnTsNode('bench/autocannon-child.ts', [], detectPinning().clientCore);
  // stdin stays open after the job line: it is the child's lifeline.
  child.process.stdin!.write(`${JSON.stringify(job)}\n`);
  const limitMs = (job.warmupSec + job.durationSec) * 1000 + CLIENT_SLACK_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stopChild(child, 1000);
  }, limitMs);
  try {
    const lines = createInterface({ input: child.process.stdout! });
    const first = new Promise<string | null>((resolve) => {
      lines.once('line', resolve);
      lines.once('close', () => resolve(null));
    });
    const [line, code] = await Promise.all([first, child.exited]);
    if (line === null || code !== 0) {
      const why = timedOut ? `stopped after ${limitMs / 1000} s` : `exit ${code}`;
      throw new Error(`autocannon client failed (${why}): ${child.stderrTail()}`);
    }
    return JSON.parse(line) as ClientResult;
  } finally {
    clearTimeout(timer);
    await stopChild(child);
  }
}
