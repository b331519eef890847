// Measurement prototype, not service code: the worker thread of `thread` modes — materializer and executions; posts marks and events back.
import { parentPort, workerData } from 'node:worker_threads';
import { createPacer } from '../../runtime/execution/pacer.js';
import { createExecutionSide, type Envelope } from './execution-side.js';
import { createGroupCommit } from './group-commit.js';
import { openDatabase } from './split-db.js';
import { createUnitApplier, type WriteUnit } from './write-units.js';

export interface WorkerSettings {
  file: string;
  synchronous: 'FULL' | 'NORMAL';
  chunks: number;
  concurrency: number;
  /** Who writes: 'both' (a connection each), 'main' (the worker's units go to main's writer), 'worker' (accepts come here). */
  writer: 'both' | 'main' | 'worker';
}

/** Worker → main, at most once per loop turn: what committed since the last message, and units for main's writer. */
export interface Progress {
  materializedThrough: number;
  completed: number;
  envelopes: Envelope[];
  units: Array<{ id: number; unit: WriteUnit }>;
  /** Runs whose accept row this worker committed (writer 'worker'): main answers their 202 now. */
  acceptsCommitted: string[];
  busy: { retries: number; waitMs: number };
  writer: { commits: number; units: number; commitMs: number };
}

/** Main → worker: runs committed by the accept side, and (one-writer mode) ids of the worker's units now committed. */
export interface ToWorker {
  accepted: string[];
  committed: number[];
  /** writer 'worker': accept rows to commit (the 202 waits for them). */
  accepts: Array<{ runId: string; plan: string }>;
}

const port = parentPort!;
const settings = workerData as WorkerSettings;
const db = openDatabase(settings.file, settings.synchronous);
const writer = createGroupCommit(db);
const apply = createUnitApplier(db);
const fresh = (): Progress => ({ materializedThrough, completed: 0, envelopes: [], units: [], acceptsCommitted: [], busy: { ...writer.busy }, writer: { ...writer.stats } });
let materializedThrough = 0;
let pending = fresh();
let posting = false;

// One message per loop turn, not one per event: postMessage costs microseconds on both threads.
function post(): void {
  if (posting) return;
  posting = true;
  setImmediate(() => {
    posting = false;
    port.postMessage({ ...pending, materializedThrough, busy: { ...writer.busy }, writer: { ...writer.stats } });
    pending = fresh();
  });
}

const waiting = new Map<number, () => void>();
let nextId = 0;
const write = settings.writer === 'main'
  ? (unit: WriteUnit) =>
      new Promise<void>((resolve) => {
        const id = (nextId += 1);
        waiting.set(id, resolve);
        pending.units.push({ id, unit });
        post();
      })
  : (unit: WriteUnit) => writer.unit(() => apply(unit));

const side = createExecutionSide({
  db,
  write,
  pace: createPacer().pace,
  chunks: settings.chunks,
  concurrency: settings.concurrency,
  materialized(through) {
    materializedThrough = through;
    post();
  },
  publish(envelope) {
    pending.envelopes.push(envelope);
    post();
  },
  completed() {
    pending.completed += 1;
    post();
  },
});

port.on('message', ({ accepted, committed, accepts }: ToWorker) => {
  for (const { runId, plan } of accepts) {
    writer.submit(
      () => apply({ kind: 'accept', runId, plan }),
      () => {
        pending.acceptsCommitted.push(runId);
        post();
        side.accepted([runId]);
      },
    );
  }
  for (const id of committed) {
    waiting.get(id)?.();
    waiting.delete(id);
  }
  if (accepted.length > 0) side.accepted(accepted);
});
port.postMessage('ready');
