// Owns `switchyard start`: opens the database, applies --manifest, seeds the demo when allowed, serves until a signal.
import { createServer } from 'node:net';
import { loadManifestFile } from '../../runtime/manifest/load.js';
import { mintDemoKey, seedDemo, seededDemo, type DemoSeed } from '../../runtime/demo.js';
import { createLogger } from '../../runtime/logger.js';
import type { ServiceConfig } from '../../runtime/config.js';
import type { Service } from '../../http/service.js';
import { demoPlan, type DemoPlan } from './demo-plan.js';
import { exitCodeOf } from './exit-codes.js';
import { packageFile } from './package-root.js';
import { serviceConfig, type ConfigFlags } from './service-config.js';
import { reportListening, startSupervisor, workerIndex } from './supervisor.js';
import { workerCount } from './workers.js';

export interface StartOptions extends ConfigFlags {
  manifest?: string;
  demo?: boolean;
  workers?: number;
}

/** The port a supervisor resolved for its workers (so `--port 0` means one free port for all of them). */
const WORKER_PORT = 'SWITCHYARD_WORKER_PORT';

/** Human lines go to stderr: stdout carries the JSON log lines only, for whatever collects them. */
const say = (text: string): void => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);

export async function startCommand(options: StartOptions): Promise<void> {
  const config = serviceConfig(options);
  const workers = workerCount(options.workers, process.env, config.databaseUrl !== null);
  const index = workerIndex();
  if (index !== null) {
    // A worker's IPC channel to the supervisor keeps its loop alive: a failed start must exit, not linger.
    return serveWorker(config, index).catch((error: unknown) => {
      say(`switchyard: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(exitCodeOf(error));
    });
  }
  // Read before the database is opened: a refused manifest leaves no new database file behind.
  const manifest = options.manifest === undefined ? null : loadManifestFile(options.manifest);
  const { createService } = await import('../../http/service.js');
  if (workers > 1) return supervise(config, workers, options, manifest);
  const service = await createService({ config });
  try {
    const { plan, demo } = await prepare(service, options, manifest);
    const port = await service.listen(config.port, config.host);
    announce(config, port, plan, demo, service.driver.target);
  } catch (error) {
    await service.close();
    throw error;
  }
  stopOnSignals(service);
}

/** Migrations (on open), the manifest and the demo: done once, by the single process or by the supervisor. */
async function prepare(service: Service, options: StartOptions, manifest: unknown): Promise<{ plan: DemoPlan; demo: DemoSeed | null }> {
  const earlier = await seededDemo(service.store);
  const plan = demoPlan({
    flag: options.demo,
    manifestGiven: manifest !== null,
    databaseEmpty: await service.store.repos.tenancy.isEmpty(),
    demoSeededEarlier: earlier !== null,
  });
  if (manifest !== null) await service.applyManifest(manifest);
  let demo: DemoSeed | null = null;
  if (plan === 'seed') demo = await seedDemo(service, loadManifestFile(packageFile('examples/demo.workspace.json')));
  if (plan === 'new-key' && earlier !== null) demo = await mintDemoKey(service.store, earlier);
  return { plan, demo };
}

function announce(config: ServiceConfig, port: number, plan: DemoPlan, demo: DemoSeed | null, target: string): void {
  const base = config.publicUrl ?? `http://${config.host}:${port}`;
  say(demo?.banner(base) ?? `Switchyard is running at ${base}  (API base: ${base}/api/v1)   Stop: Ctrl-C`);
  if (plan === 'skip-existing') say(`The database ${target} already holds data: the demo workspace was not seeded (--demo seeds it).`);
}

/**
 * The supervisor prepares the database once (migrations, manifest, demo) and closes it before forking, so workers
 * never race to seed or migrate and the supervisor holds no connection while they serve.
 */
async function supervise(config: ServiceConfig, count: number, options: StartOptions, manifest: unknown): Promise<void> {
  const { createService } = await import('../../http/service.js');
  const port = config.port === 0 ? await freePort(config.host) : config.port;
  const logger = createLogger(config.logLevel).child({ role: 'supervisor' });
  const service = await createService({ config, logger });
  let prepared: { plan: DemoPlan; demo: DemoSeed | null };
  try {
    prepared = await prepare(service, options, manifest);
  } finally {
    await service.close();
  }
  let startFailed = false;
  const supervisor = startSupervisor({ count, env: { [WORKER_PORT]: String(port) }, logger });
  process.once('SIGINT', () => supervisor.stop('SIGINT'));
  process.once('SIGTERM', () => supervisor.stop('SIGTERM'));
  supervisor.ready.then(
    (pids) => {
      announce(config, port, prepared.plan, prepared.demo, service.driver.target);
      say(`${count} worker processes share port ${port}: pids ${pids.join(' ')}`);
    },
    (error: Error) => {
      startFailed = true;
      say(`switchyard: ${error.message}`);
      supervisor.stop('SIGTERM');
    },
  );
  // Workers that could not all start are a failure even when the others then drain cleanly.
  const drained = await supervisor.done;
  const code = startFailed ? 1 : drained;
  say(code === 0 ? 'all workers stopped' : 'switchyard: stopped with errors (see the log)');
  process.exit(code);
}

/** One worker under a supervisor: serves the prepared database on the supervisor's port, logs its index. */
async function serveWorker(config: ServiceConfig, index: number): Promise<void> {
  const { createService } = await import('../../http/service.js');
  const logger = createLogger(config.logLevel).child({ worker: index, pid: process.pid });
  const service = await createService({ config, logger });
  try {
    reportListening(await service.listen(Number(process.env[WORKER_PORT] ?? config.port), config.host));
  } catch (error) {
    await service.close();
    throw error;
  }
  // Ctrl-C reaches the whole process group and the supervisor then relays it: a second signal must not cut the drain.
  // A supervisor killed outright closes the IPC channel: node:cluster then exits the worker at once (never orphaned).
  stopOnSignals(service, 'every');
}

function stopOnSignals(service: Service, signals: 'first' | 'every' = 'first'): (signal: string) => Promise<void> {
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: shutting down…`);
    try {
      await service.close();
      process.exit(0);
    } catch (error) {
      say(`switchyard: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    }
  };
  // A lone process: a second Ctrl-C gets Node's default (exit at once), the way out of a stuck shutdown.
  const listen = signals === 'every' ? process.on.bind(process) : process.once.bind(process);
  listen('SIGINT', () => void stop('SIGINT'));
  listen('SIGTERM', () => void stop('SIGTERM'));
  return stop;
}

/** A port free on `host` now, so every worker binds the same one (with port 0 each would pick its own). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
