// The execution worker thread's entry (SWITCHYARD_EXECUTION=thread): the runtime's execution side on its own SQLite connection.
/*
 * Built from the service's configuration like a process of its own: it opens the same file (WAL: main reads and
 * writes accepts on its connection, this one writes execution units), loads the same master keys, recovers what
 * was accepted or running (as a restart does), then runs every turn, flow run and timer. Main's messages arrive
 * through runtime.executionHost. Decision "Execution in a worker thread (issue 12 item 2)".
 */
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../runtime/clock.js';
import type { ToMain, ToWorker } from '../runtime/thread/protocol.js';
import { niceThisThread } from '../runtime/thread/thread-priority.js';
import { createLogger } from '../runtime/logger.js';
import { createRuntime } from '../runtime/runtime.js';
import { createTelemetry } from '../runtime/telemetry/index.js';
import { openStore } from '../storage/store.js';
import type { ExecutionWorkerData } from './execution-thread.js';
import { loadMasterKeys } from './master-keys.js';

const port = parentPort!;
const post = (message: ToMain): void => port.postMessage(message);
const { config, logLevel } = workerData as ExecutionWorkerData;
// Lines go to main, which writes them through its own logger (stdout may be a protocol, as in the crash tests).
const logger = createLogger(logLevel, { write: (line: string) => post({ t: 'log', line }) });

async function boot(): Promise<void> {
  // Before any work: turns then run on what the HTTP loop leaves of a shared core (decision "The execution thread
  // yields the core to HTTP").
  const nice = niceThisThread(config.executionNice);
  logger.debug({ nice }, 'execution thread priority');
  const store = openStore({ path: config.dbPath, durability: config.durability, sharedFile: true });
  const keyRing = loadMasterKeys(config, process.env, logger);
  // No process metrics here: main's registry has them for the whole process (a scrape sums both registries).
  const telemetry = createTelemetry({ store, clock: systemClock, logger, writerSamples: store.writer.stats, defaultMetrics: false });
  const runtime = createRuntime({
    config,
    clock: systemClock,
    logger,
    store,
    keyRing,
    telemetry,
    paceWriter: (pacer) => store.writer.paceWith(pacer),
    // The only scheduler that delivers on this file: a dead predecessor's timer claims are dropped at start.
    soleScheduler: true,
    execution: { side: 'execute', post, invalidateCaches: () => store.cache.invalidate() },
  });
  // After this connection's transaction ended: main drops its caches only once the new rows are visible to it.
  store.cache.onCommittedWrite(() => post({ t: 'invalidate' }));
  let stopping: Promise<void> | null = null;
  port.on('message', (message: ToWorker) => {
    if (message.t !== 'stop') return runtime.executionHost!.receive(message);
    stopping ??= (async () => {
      await runtime.stop();
      store.close();
      post({ t: 'stopped' });
      port.close();
    })();
  });
  await runtime.start();
  post({ t: 'ready' });
}

boot().catch((error: unknown) => {
  post({ t: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
