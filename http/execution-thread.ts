// Runs the execution side in a worker thread (SWITCHYARD_EXECUTION=thread): starts it, restarts it when it dies, stops it in order.
/*
 * The worker (http/execution-worker.ts) opens its own connection to the same SQLite file and recovers like a
 * restarted process before it runs anything. A worker that dies (an uncaught error, terminate()) is started again
 * at once, after a short backoff if it keeps dying: its work is durable, and the new one's recovery resumes it.
 * Messages posted meanwhile go to the new worker; calls waiting for the dead one fail with 503.
 * Decision "Execution in a worker thread (issue 12 item 2)".
 */
import { Worker } from 'node:worker_threads';
import type { ServiceConfig } from '../runtime/config.js';
import type { ExecutionClient } from '../runtime/thread/execution-client.js';
import type { ToMain, ToWorker } from '../runtime/thread/protocol.js';
import type { Logger } from '../runtime/logger.js';

export interface ExecutionThread {
  post(message: ToWorker): void;
  /** Where the worker's messages go (the runtime's client), set before start(). */
  attach(client: ExecutionClient): void;
  /** Starts the worker; resolves once it recovered and runs work, rejects when its boot failed. */
  start(): Promise<void>;
  /** Stops the worker in order (its units committed, its connection closed) and resolves once it exited. */
  stop(): Promise<void>;
  /** The running worker, for tests that kill it (`terminate()`); null while none runs. */
  readonly worker: Worker | null;
  readonly restarts: number;
}

/** What the worker needs to build the same runtime: the service's configuration, nothing secret. */
export interface ExecutionWorkerData {
  readonly config: ServiceConfig;
  /** Main's logger level: the worker's lines go through main's logger (its destination, redaction, test sinks). */
  readonly logLevel: string;
}

/** A worker's pino line, written again through main's logger with the fields it carried. */
function relayLog(logger: Logger, line: string): void {
  try {
    const { level, msg, time: _time, pid: _pid, hostname: _host, service: _service, ...fields } = JSON.parse(line) as Record<string, unknown>;
    const label = (logger.levels.labels[level as number] ?? 'info') as 'info';
    logger[label]({ thread: 'execution', ...fields }, String(msg ?? ''));
  } catch {
    logger.warn({ thread: 'execution' }, 'an execution thread log line could not be read');
  }
}

const FROM_SOURCE = import.meta.url.endsWith('.ts');
const ENTRY = new URL(`./execution-worker${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);

/**
 * Built code runs the entry as is. From TypeScript sources (tests, `node --import tsx`) a worker does not inherit
 * the tsx loader on Node 20, so a one-line bootstrap registers it before importing the entry.
 */
function newWorker(data: ExecutionWorkerData): Worker {
  if (!FROM_SOURCE) return new Worker(ENTRY, { workerData: data, env: process.env });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const bootstrap = `import(${tsx}).then((api) => { api.register(); return import(${JSON.stringify(ENTRY.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data, env: process.env });
}
/** A worker that dies within this long of its start counts as failing again: the next start waits longer. */
const CRASH_LOOP_MS = 5_000;
const MAX_RESTART_DELAY_MS = 5_000;
/** After the worker said it stopped (units committed, connection closed), how long it may take to exit by itself. */
const STOP_GRACE_MS = 2_000;

export function createExecutionThread(options: { config: ServiceConfig; logger: Logger }): ExecutionThread {
  const { logger } = options;
  let client: ExecutionClient | null = null;
  let worker: Worker | null = null;
  let restarts = 0;
  let stopping = false;
  let quickDeaths = 0;
  /** Posted while no worker runs (between a death and the next start): delivered to the next one. */
  let waiting: ToWorker[] = [];
  let exited: Promise<void> = Promise.resolve();

  function spawn(first: boolean): Promise<void> {
    const data: ExecutionWorkerData = { config: options.config, logLevel: logger.level };
    const current = newWorker(data);
    const bornAt = Date.now();
    worker = current;
    for (const message of waiting) current.postMessage(message);
    waiting = [];
    let ready = false;
    return new Promise<void>((resolve, reject) => {
      current.on('message', (message: ToMain) => {
        if (message.t === 'ready') {
          ready = true;
          quickDeaths = 0;
          if (!first) client?.restarted();
          resolve();
          return;
        }
        if (message.t === 'failed') {
          logger.error({ err: message.message }, 'execution thread failed to start');
          if (first) reject(new Error(`The execution thread failed to start: ${message.message}`));
          return;
        }
        if (message.t === 'log') return relayLog(logger, message.line);
        client?.receive(message);
      });
      current.on('error', (error) => logger.error({ err: error.message }, 'execution thread crashed'));
      exited = new Promise<void>((done) =>
        current.on('exit', (code) => {
          if (worker === current) worker = null;
          client?.lost();
          done();
          if (stopping) return;
          if (first && !ready) return reject(new Error(`The execution thread exited during its start (code ${code}).`));
          quickDeaths = Date.now() - bornAt < CRASH_LOOP_MS ? quickDeaths + 1 : 0;
          const delay = Math.min(MAX_RESTART_DELAY_MS, quickDeaths === 0 ? 0 : 100 * 2 ** quickDeaths);
          restarts += 1;
          logger.warn({ code, restarts, delayMs: delay }, 'execution thread exited; starting a new one (it recovers the work in flight)');
          setTimeout(() => {
            if (stopping) return;
            spawn(false).catch((error: unknown) => logger.error({ err: error instanceof Error ? error.message : String(error) }, 'execution thread restart failed'));
          }, delay).unref();
        }),
      );
    });
  }

  return {
    post(message) {
      if (worker === null) waiting.push(message);
      else worker.postMessage(message);
    },
    attach(next) {
      client = next;
    },
    start: () => spawn(true),
    async stop() {
      stopping = true;
      const current = worker;
      if (current === null) return exited;
      const stopped = new Promise<void>((resolve) => {
        current.on('message', (message: ToMain) => message.t === 'stopped' && resolve());
        current.on('exit', () => resolve());
      });
      current.postMessage({ t: 'stop' } satisfies ToWorker);
      await stopped;
      // Its connection is closed by now: a handle that still keeps the thread alive must not hold up the close.
      const lingering = setTimeout(() => void current.terminate(), STOP_GRACE_MS);
      await exited;
      clearTimeout(lingering);
    },
    get worker() {
      return worker;
    },
    get restarts() {
      return restarts;
    },
  };
}
