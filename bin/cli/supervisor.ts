// Owns `switchyard start --workers N`: forks N worker processes on one port, restarts a crashed one, drains all on a signal.
/*
 * Workers are node:cluster children running this same CLI. uWebSockets.js binds its own socket with SO_REUSEPORT
 * (the kernel spreads connections over the workers); node:http's listen in a cluster worker shares the primary's
 * socket. The supervisor opens no database: the caller prepared it (migrations, manifest, demo) before calling.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../../runtime/logger.js';

export interface SupervisorOptions {
  count: number;
  /** Environment every worker gets on top of the supervisor's (the resolved port, "prepared" markers). */
  env: Record<string, string>;
  logger: Logger;
  /** Restarts in a row of workers that died young before the supervisor gives up (exit 1). */
  maxRestarts?: number;
  /** A worker that lived this long had a healthy run: its crash starts the backoff over. */
  healthyAfterMs?: number;
}

export interface Supervisor {
  /** Resolves when every first-generation worker listens. Rejects when they cannot start. */
  ready: Promise<number[]>;
  /** Resolves with the exit code the supervisor should exit with (0 after a clean drain). */
  done: Promise<number>;
  stop(signal: NodeJS.Signals): void;
}

const WORKER_INDEX = 'SWITCHYARD_WORKER_INDEX';

/** This process's worker index when a supervisor started it, else null. */
export function workerIndex(): number | null {
  return cluster.isWorker && process.env[WORKER_INDEX] !== undefined ? Number(process.env[WORKER_INDEX]) : null;
}

/** Tells the supervisor this worker listens (no-op outside a supervisor). */
export function reportListening(port: number): void {
  if (cluster.isWorker) process.send?.({ switchyard: 'listening', port });
}

export function startSupervisor(options: SupervisorOptions): Supervisor {
  const { count, logger } = options;
  const maxRestarts = options.maxRestarts ?? 5;
  const healthyAfterMs = options.healthyAfterMs ?? 30_000;
  const slots = new Map<number, { worker: Worker; startedAt: number; crashes: number }>();
  let stopping = false;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => (finish = resolve));
  let failedCode = 0;
  const firstListen: Promise<number>[] = [];

  const fork = (index: number, crashes: number): Promise<number> => {
    const worker = cluster.fork({ ...options.env, [WORKER_INDEX]: String(index) });
    slots.set(index, { worker, startedAt: Date.now(), crashes });
    logger.info({ worker: index, pid: worker.process.pid }, 'worker started');
    const listening = new Promise<number>((resolve, reject) => {
      worker.on('message', (message: { switchyard?: string; port?: number }) => {
        if (message?.switchyard === 'listening') resolve(worker.process.pid!);
      });
      worker.once('exit', (code) => reject(new Error(`worker ${index} exited with code ${code} before it listened`)));
    });
    listening.catch(() => {});
    worker.once('exit', (code, signal) => onExit(index, worker, code, signal));
    return listening;
  };

  const onExit = (index: number, worker: Worker, code: number | null, signal: string | null): void => {
    const slot = slots.get(index);
    if (slot === undefined || slot.worker !== worker) return;
    if (stopping) {
      if (code !== 0) failedCode = 1;
      logger.info({ worker: index, pid: worker.process.pid, code, signal }, 'worker stopped');
      slots.delete(index);
      if (slots.size === 0) finish(failedCode);
      return;
    }
    // A worker that ran for a while crashed once; one that dies young again and again is a crash loop.
    const crashes = Date.now() - slot.startedAt >= healthyAfterMs ? 1 : slot.crashes + 1;
    if (crashes > maxRestarts) {
      logger.error({ worker: index, pid: worker.process.pid, code, signal, restarts: slot.crashes }, 'worker keeps crashing: giving up, stopping every worker');
      slots.delete(index);
      failedCode = 1;
      stop('SIGTERM');
      if (slots.size === 0) finish(1);
      return;
    }
    const delayMs = Math.min(250 * 2 ** (crashes - 1), 10_000);
    logger.warn({ worker: index, pid: worker.process.pid, code, signal, restartInMs: delayMs, attempt: crashes }, 'worker died: restarting');
    // Out of the slots while it waits: a drain meanwhile has nothing of it to wait for.
    slots.delete(index);
    setTimeout(() => {
      if (!stopping) fork(index, crashes);
    }, delayMs);
  };

  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: slots.size }, 'draining workers');
    // Each worker runs its own graceful shutdown on the signal (the same one `switchyard start` handles).
    for (const { worker } of slots.values()) if (!worker.isDead()) worker.process.kill(signal);
    if (slots.size === 0) finish(failedCode);
  };

  for (let index = 0; index < count; index++) firstListen.push(fork(index, 0));
  return { ready: Promise.all(firstListen), done, stop };
}
