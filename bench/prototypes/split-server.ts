// Measurement prototype, not service code: uWS accepting POST /fire with one durable row per accept, execution `inline` or on a worker `thread`.
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
import type { Progress, WorkerSettings } from './execution-worker.js';
import { createFanOut } from './fan-out.js';
import { createGroupCommit } from './group-commit.js';
import { openDatabase, prepareDatabase, SEED } from './split-db.js';
import { startTsWorker } from './ts-worker.js';
import { calibrate } from './turn-work.js';

const { values } = parseArgs({
  options: { mode: { type: 'string', default: 'inline' }, 'exec-us': { type: 'string', default: '500' }, 'max-queued': { type: 'string', default: '4000' }, concurrency: { type: 'string', default: '64' } },
});
const mode = values.mode === 'thread' ? 'thread' : 'inline';
const maxQueued = Number(values['max-queued']);
const uWS = requireNativeUws('split-server');

const dir = mkdtempSync(join(tmpdir(), 'switchyard-split-'));
const file = join(dir, 'split.db');
prepareDatabase(file);
const { chunks, usPerChunk } = calibrate(Number(values['exec-us']));
const db = openDatabase(file);
const writer = createGroupCommit(db);
const fanOut = createFanOut();
const insertRun = db.prepare(
  "INSERT INTO trigger_runs (id, trigger_id, org_id, source, fired_by, outcome, idempotency_key, created_at, results) VALUES (?, ?, ?, 'api', NULL, 'succeeded', NULL, ?, ?)",
);
const counters = { accepted: 0, refused: 0, badRequests: 0, completed: 0, materializedThrough: 0, rssPeakMb: 0 };
const workerBusy = { retries: 0, waitMs: 0 };
const workerWriter = { commits: 0, units: 0 };
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
setInterval(() => (counters.rssPeakMb = Math.max(counters.rssPeakMb, process.memoryUsage.rss() / 2 ** 20)), 100).unref();

/** Hands committed run ids to the execution side: directly inline, one postMessage per loop turn to the worker. */
const handOff = mode === 'inline' ? inlineSide() : await threadSide();

function inlineSide(): (runId: string) => void {
  const side = createExecutionSide({
    db,
    writer,
    pace: createPacer().pace,
    chunks,
    concurrency: Number(values.concurrency),
    materialized: (through) => (counters.materializedThrough = through),
    publish: (envelope) => fanOut.deliver(envelope),
    completed: () => (counters.completed += 1),
  });
  return (runId) => side.accepted([runId]);
}

async function threadSide(): Promise<(runId: string) => void> {
  const settings: WorkerSettings = { file, chunks, concurrency: Number(values.concurrency) };
  const worker = startTsWorker(new URL('./execution-worker.ts', import.meta.url), { workerData: settings });
  worker.on('error', (error) => {
    process.stderr.write(`split-server: execution worker failed: ${error.stack ?? String(error)}\n`);
    process.exit(1);
  });
  await new Promise<void>((resolve) => worker.once('message', () => resolve()));
  worker.on('message', (progress: Progress) => {
    counters.materializedThrough = progress.materializedThrough;
    counters.completed += progress.completed;
    for (const envelope of progress.envelopes) fanOut.deliver(envelope);
    Object.assign(workerBusy, progress.busy);
    Object.assign(workerWriter, progress.writer);
  });
  let batch: string[] = [];
  return (runId) => {
    if (batch.length === 0) queueMicrotask(() => {
      worker.postMessage(batch);
      batch = [];
    });
    batch.push(runId);
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
  writer.submit(
    () => insertRun.run(runId, SEED.trigger, SEED.org, Date.now(), plan),
    () => {
      handOff(runId);
      if (!state.aborted) reply(res, '202 Accepted', body);
    },
  );
}

const app = uWS.App();
app.get('/healthz', (res) => reply(res, '200 OK', '{"status":"ok"}'));
app.get('/stats', (res) => {
  const stats = {
    mode, chunks, usPerChunk, ...counters, queued: counters.accepted * 2 - counters.completed, maxQueued,
    envelopes: fanOut.stats.envelopes, outOfOrder: fanOut.stats.outOfOrder,
    mainBusy: writer.busy, workerBusy, mainWriter: writer.stats, workerWriter,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6, rssMb: process.memoryUsage.rss() / 2 ** 20,
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
    rmSync(dir, { recursive: true, force: true });
  });
  announce({ port: uWS.us_socket_local_port(socket as unknown as UWS.us_socket), adapter: 'uws', facts: { mode, chunks: String(chunks) } });
});
