// Measurement prototype, not service code: the worker thread of `thread` mode — its own connection, materializer and executions; posts marks and events back.
import { parentPort, workerData } from 'node:worker_threads';
import { createPacer } from '../../runtime/execution/pacer.js';
import { createExecutionSide, type Envelope } from './execution-side.js';
import { createGroupCommit } from './group-commit.js';
import { openDatabase } from './split-db.js';

export interface WorkerSettings {
  file: string;
  chunks: number;
  concurrency: number;
}

/** Worker → main, at most once per loop turn: what committed since the last message. */
export interface Progress {
  materializedThrough: number;
  completed: number;
  envelopes: Envelope[];
  busy: { retries: number; waitMs: number };
  writer: { commits: number; units: number };
}

const port = parentPort!;
const settings = workerData as WorkerSettings;
const db = openDatabase(settings.file);
const writer = createGroupCommit(db);
let pending: Progress = { materializedThrough: 0, completed: 0, envelopes: [], busy: writer.busy, writer: writer.stats };
let posting = false;

// One message per loop turn, not one per event: postMessage costs microseconds on both threads.
function post(): void {
  if (posting) return;
  posting = true;
  setImmediate(() => {
    posting = false;
    port.postMessage({ ...pending, busy: { ...writer.busy }, writer: { ...writer.stats } });
    pending = { materializedThrough: pending.materializedThrough, completed: 0, envelopes: [], busy: writer.busy, writer: writer.stats };
  });
}

const side = createExecutionSide({
  db,
  writer,
  pace: createPacer().pace,
  chunks: settings.chunks,
  concurrency: settings.concurrency,
  materialized(through) {
    pending.materializedThrough = through;
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

port.on('message', (runIds: string[]) => side.accepted(runIds));
port.postMessage('ready');
