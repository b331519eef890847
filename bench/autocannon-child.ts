// The load client: runs autocannon in its own process (pinned to the client core) and prints one JSON result line.
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { announce, exitWithParent } from './child-lifecycle.js';
import type { LoadRequest } from './scenario.js';

export interface ClientJob {
  url: string;
  connections: number;
  durationSec: number;
  warmupSec: number;
  request: LoadRequest;
}

export interface ClientResult {
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  total: number;
  /** status code -> responses */
  statusCodes: Record<string, number>;
  /** Answers with the expected status in each second of the measured run (after warm-up), oldest first. */
  expectedPerSecond: number[];
}

/** The part of autocannon's (untyped) API this client uses. */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
/**
 * The promise form (the callback form skips the warm-up) is also the main run's tracker: `response` carries each
 * answer's status and `tick` ends each second of the measured run.
 */
type Autocannon = (options: Record<string, unknown>) => PromiseLike<AutocannonResult> & {
  on(event: 'response', listener: (client: unknown, statusCode: number) => void): void;
  on(event: 'tick', listener: () => void): void;
};

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

// A dead runner takes the client with it (stdin lifeline); the runner also kills it by PID on its own timeout.
exitWithParent();
// The job arrives as the first stdin line, not argv: its headers may carry a key, and argv is visible to `ps`.
const job = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: process.stdin }).once('line', resolve))) as ClientJob;
const { request } = job;
const expectedStatus = request.expectedStatus ?? 200;
// Per-second counts of expected answers, to tell a steady rate from one that decays while history grows (issue 12).
const perSecond: number[] = [];
let expectedSoFar = 0;
let expectedAtLastTick = 0;
const instance = autocannon({
  url: job.url,
  connections: job.connections,
  duration: job.durationSec,
  pipelining: 1,
  method: request.method ?? 'GET',
  requests: [{ method: request.method ?? 'GET', path: request.path, headers: request.headers, body: request.body }],
  idReplacement: request.idReplacement ?? false,
  ...(job.warmupSec > 0 ? { warmup: { connections: job.connections, duration: job.warmupSec } } : {}),
});
instance.on('response', (_client, statusCode) => {
  if (statusCode === expectedStatus) expectedSoFar += 1;
});
instance.on('tick', () => {
  perSecond.push(expectedSoFar - expectedAtLastTick);
  expectedAtLastTick = expectedSoFar;
});
const result = await instance;
const output: ClientResult = {
  reqPerSec: result.requests.average,
  p50ms: result.latency.p50,
  p99ms: result.latency.p99,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  total: result.requests.total,
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count])),
  expectedPerSecond: perSecond,
};
announce(output);
process.exit(0);
