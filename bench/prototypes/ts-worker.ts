// Measurement prototype, not service code: starts a TypeScript module as a worker thread (tsx's `--import` hooks do not reach workers on Node 20).
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** The worker registers tsx's loader itself, then imports the module; `workerData` and messages work as usual. */
export function startTsWorker(module: URL, options: WorkerOptions): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
