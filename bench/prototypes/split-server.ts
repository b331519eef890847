// Measurement prototype, not service code: uWS accepting POST /fire with one durable row per accept; execution inline or on a worker (3 writer layouts).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type UWS from 'uWebSockets.js';
import { createPacer } from '../../runtime/execution/pacer.js';
import { announce, exitWithParent, requireNativeUws } from '../child-lifecycle.js';
import { createExecutionSide } from './execution-side.js';
import type { Progress, ToWorker, WorkerSettings } from './execution-worker.js';
import { createFanOut } from './fan-out.js';
import { createGroupCommit } from './group-commit.js';
import { openDatabase, prepareDatabase, SEED } from './split-db.js';
import { startTsWorker } from './ts-worker.js';
import { createUnitApplier } from './write-units.js';
import { calibrate } from './turn-work.js';

const { values } = parseArgs({
  options: { mode: { type: 'string', default: 'inline' }, 'exec-us': { type: 'string', default: '500' }, 'max-queued': { type: 'string', default: '4000' }, concurrency: { type: 'string', default: '64' }, synchronous: { type: 'string', default: 'FULL' } },
});
const MODES = ['inline', 'thread', 'thread-main-writes', 'thread-worker-writes'] as const;
const mode = MODES.find((m) => m === values.mode);
if (!mode) throw new Error(`--mode is one of ${MODES.join(', ')}`);
const maxQueued = Number(values['max-queued']);
const synchronous = values.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL';
const uWS = requireNativeUws('split-server');

const dir = mkdtempSync(join(tmpdir(), 'switchyard-split-'));
const file = join(dir, 'split.db');
prepareDatabase(file);
const { chunks, usPerChunk } = calibrate(Number(values['exec-us']));
const db = openDatabase(file, synchronous);
const writer = createGroupCommit(db);
const fanOut = createFanOut();
const apply = createUnitApplier(db);
const counters = { accepted: 0, refused: 0, badRequests: 0, completed: 0, materializedThrough: 0, rssPeakMb: 0 };
const workerBusy = { retries: 0, waitMs: 0 };
const workerWriter = { commits: 0, units: 0, commitMs: 0 };
/** Units the main thread wrote for the worker (thread-main-writes). */
let unitsForWorker = 0;
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
setInterval(() => (counters.rssPeakMb = Math.max(counters.rssPeakMb, process.memoryUsage.rss() / 2 ** 20)), 100).unref();

/** thread-worker-writes: the 202 of each run waits for the worker's commit mark. */
const awaitingCommit = new Map<string, () => void>();
/** Hands committed run ids to the execution side: directly inline, batched per microtask to the worker. */
const side = mode === 'inline' ? { handOff: inlineSide(), commitAccept: null } : await threadSide();
const handOff = side.handOff;

function inlineSide(): (runId: string) => void {
  const side = createExecutionSide({
    db,
    write: (unit) => writer.unit(() => apply(unit)),
    pace: createPacer().pace,
    chunks,
    concurrency: Number(values.concurrency),
    materialized: (through) => (counters.materializedThrough = through),
    publish: (envelope) => fanOut.deliver(envelope),
    completed: () => (counters.completed += 1),
  });
  return (runId) => side.accepted([runId]);
}

async function threadSide(): Promise<{ handOff: (runId: string) => void; commitAccept: (runId: string, plan: string) => void }> {
  const settings: WorkerSettings = { file, synchronous, chunks, concurrency: Number(values.concurrency), writer: mode === 'thread-main-writes' ? 'main' : mode === 'thread-worker-writes' ? 'worker' : 'both' };
  const worker = startTsWorker(new URL('./execution-worker.ts', import.meta.url), { workerData: settings });
  worker.on('error', (error) => {
    process.stderr.write(`split-server: execution worker failed: ${error.stack ?? String(error)}\n`);
    process.exit(1);
  });
  await new Promise<void>((resolve) => worker.once('message', () => resolve()));
  // Accepted runs and committed unit ids travel together, one message per microtask batch.
  let outgoing: ToWorker = { accepted: [], committed: [], accepts: [] };
  const send = (): void => {
    if (outgoing.accepted.length + outgoing.committed.length + outgoing.accepts.length > 0) return;
    queueMicrotask(() => {
      worker.postMessage(outgoing);
      outgoing = { accepted: [], committed: [], accepts: [] };
    });
  };
  worker.on('message', (progress: Progress) => {
    counters.materializedThrough = progress.materializedThrough;
    counters.completed += progress.completed;
    for (const envelope of progress.envelopes) fanOut.deliver(envelope);
    for (const runId of progress.acceptsCommitted) {
      awaitingCommit.get(runId)?.();
      awaitingCommit.delete(runId);
    }
    for (const { id, unit } of progress.units) {
      unitsForWorker += 1;
      writer.submit(() => apply(unit), () => {
        send();
        outgoing.committed.push(id);
      });
    }
    Object.assign(workerBusy, progress.busy);
    Object.assign(workerWriter, progress.writer);
  });
  return {
    handOff(runId) {
      send();
      outgoing.accepted.push(runId);
    },
    commitAccept(runId, plan) {
      send();
      outgoing.accepts.push({ runId, plan });
    },
  };
}

function reply(res: UWS.HttpResponse, status: string, body: string, headers: Record<string, string> = {}): void {
  res.cork(() => {
    res.writeStatus(status).writeHeader('content-type', 'application/json; charset=utf-8');
    for (const [name, value] of Object.entries(headers)) res.writeHeader(name, value);
    res.end(body);
  });
}

function accept(res: UWS.HttpResponse, state: { aborted: boolean }, text: string): void {
  let input: unknown;
  try {
    input = (JSON.parse(text) as { input?: unknown }).input ?? {};
  } catch {
    counters.badRequests += 1;
    return reply(res, '400 Bad Request', JSON.stringify({ error: { code: 'VALIDATION', message: 'The body is not JSON.' } }));
  }
  // Bounded in executions, counted from the accept (not the commit) so a burst cannot overshoot the bound.
  if (counters.accepted * 2 - counters.completed >= maxQueued) {
    counters.refused += 1;
    return reply(res, '429 Too Many Requests', JSON.stringify({ error: { code: 'OVERLOADED', message: 'The execution queue is full; retry later.' } }), { 'retry-after': '1' });
  }
  counters.accepted += 1;
  const runId = randomUUID();
  const sessions = [SEED.agent, SEED.flow].map((automationId) => ({ automationId, sessionId: randomUUID() }));
  const body = JSON.stringify({ runId, sessions });
  const plan = JSON.stringify(sessions.map((session, position) => ({ ...session, position, status: 'pending', input })));
  const answer = (): void => {
    if (!state.aborted) reply(res, '202 Accepted', body);
  };
  if (mode === 'thread-worker-writes') {
    // The worker commits the row in its own group commit and hands the run to its execution side itself.
    awaitingCommit.set(runId, answer);
    return side.commitAccept!(runId, plan);
  }
  writer.submit(
    () => apply({ kind: 'accept', runId, plan }),
    () => {
      handOff(runId);
      answer();
    },
  );
}

const app = uWS.App();
app.get('/healthz', (res) => reply(res, '200 OK', '{"status":"ok"}'));
app.get('/stats', (res) => {
  const stats = {
    mode, chunks, usPerChunk, ...counters, queued: counters.accepted * 2 - counters.completed, maxQueued,
    envelopes: fanOut.stats.envelopes, outOfOrder: fanOut.stats.outOfOrder,
    mainBusy: writer.busy, workerBusy, mainWriter: writer.stats, workerWriter, unitsForWorker,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6, rssMb: process.memoryUsage.rss() / 2 ** 20,
    // Both threads: the process's CPU time, to tell whether the worker really got a second core.
    cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  };
  loopDelay.reset();
  reply(res, '200 OK', JSON.stringify(stats));
});
app.post('/fire', (res) => {
  const state = { aborted: false };
  res.onAborted(() => (state.aborted = true));
  const parts: Buffer[] = [];
  let size = 0;
  res.onData((chunk, isLast) => {
    size += chunk.byteLength;
    if (state.aborted) return;
    if (size > 65_536) {
      state.aborted = true; // answered: later chunks are dropped and the response is not touched again
      return reply(res, '413 Payload Too Large', JSON.stringify({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'At most 64 KiB.' } }));
    }
    parts.push(Buffer.from(chunk.slice(0)));
    if (isLast) accept(res, state, Buffer.concat(parts).toString('utf8'));
  });
});

app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    process.stderr.write('split-server: could not listen on 127.0.0.1\n');
    process.exit(1);
  }
  exitWithParent(() => {
    uWS.us_listen_socket_close(socket);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  announce({ port: uWS.us_socket_local_port(socket as unknown as UWS.us_socket), adapter: 'uws', facts: { mode, chunks: String(chunks) } });
});
