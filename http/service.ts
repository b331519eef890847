// createService: the embedding API and what the CLI runs (store + runtime + an HTTP adapter, or a handler to mount).
import type { TracerProvider } from '@opentelemetry/api';
import { createLogger, type Logger } from '../runtime/logger.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import { databaseUrlFrom, DEFAULT_CONFIG, threadExecutionMisfit, type ServiceConfig } from '../runtime/config.js';
import { createRuntime } from '../runtime/runtime.js';
import { createTelemetry } from '../runtime/telemetry/index.js';
import { TokenBuckets } from '../runtime/rate-limit.js';
import type { Services } from '../runtime/services.js';
import type { Storage } from '../storage/port/storage.js';
import type { Store } from '../storage/store.js';
import { openStorageDriver, type StorageDriver } from './storage-driver.js';
import { applyManifest, type ApplyManifestResult } from '../runtime/manifest/apply.js';
import type { KeyRing } from '../runtime/vault/index.js';
import { createExecutionThread, type ExecutionThread } from './execution-thread.js';
import { loadMasterKeys } from './master-keys.js';
import { AppError } from '../runtime/errors.js';
import type { AdapterName } from './adapter-shared.js';
import { errorReply } from './error-reply.js';
import { chooseAdapter, createHttpServer } from './http-server.js';
import { createKernel, type Kernel } from './kernel.js';
import { createHttpMetrics, watchExecutionQueue } from './metrics.js';
import { Router } from './router.js';
import { allRoutes } from './routes/index.js';
import { NodeAdapter, type NodeRequestHandler } from './node-server.js';

/** Routes that never read accepted-but-unwritten work: the two accepts (they only add to it) and the probes. */
const DEFERRING_ROUTES: ReadonlySet<string> = new Set([
  'POST /api/v1/triggers/fire',
  'POST /api/v1/agents/:automationId/sessions',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
]);

export interface CreateServiceOptions {
  /** SQLite file path or ':memory:' (default: config.dbPath); unused when a database URL is given. */
  dbPath?: string;
  /** postgres:// URL: runs on PostgreSQL instead of SQLite (default: config.databaseUrl, which the CLI reads from SWITCHYARD_DATABASE_URL). */
  databaseUrl?: string;
  config?: Partial<ServiceConfig>;
  clock?: Clock;
  logger?: Logger;
  /** Master keys for envelope encryption; default: SWITCHYARD_MASTER_KEYS / _FILE, else a 0600 file beside the DB. */
  keyRing?: KeyRing;
  /** Environment to read master-key settings from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Where spans go (default: the global OpenTelemetry provider, a no-op unless an SDK registered one). */
  tracerProvider?: TracerProvider;
}

/** A service known to run on SQLite: its `store` is the SQLite store (tests and bench seeding reach its handle). */
export type SqliteService = Omit<Service, 'store'> & { readonly store: Store };

/** The service as a SqliteService; throws on PostgreSQL, where no SQLite handle exists. */
export function onSqlite(service: Service): SqliteService {
  if (service.driver.sqlite === null) throw new Error(`this needs the SQLite driver; the service runs on ${service.driver.engine}`);
  return service as unknown as SqliteService;
}

export interface Service {
  readonly services: Services;
  /** The storage port the runtime runs on, whichever driver opened it. */
  readonly store: Storage;
  /** Which driver runs, where its data lives, and the SQLite store itself (null on PostgreSQL). */
  readonly driver: Pick<StorageDriver, 'engine' | 'target' | 'sqlite'>;
  /** The transport-neutral kernel: tests and embedders can call it without a socket. */
  readonly kernel: Kernel;
  /** Applies a workspace manifest (parsed or as written) in one transaction; idempotent by ref. */
  applyManifest(manifest: unknown): Promise<ApplyManifestResult>;
  /** The adapter `listen` serves with: uws (uWebSockets.js) or node (node:http); see config.httpAdapter. */
  readonly adapter: AdapterName;
  /**
   * A node:http `(req, res)` handler for mounting the service in an existing server (Express, Fastify, Hono's
   * node adapter, a plain http.createServer) without a port of its own; the URL is used as the host passes it.
   */
  readonly handler: NodeRequestHandler;
  /** The same, for a host that forwards a prefix unchanged: `basePath` ('/switchyard') is stripped first. */
  nodeHandler(options?: { basePath?: string }): NodeRequestHandler;
  /** Starts serving; resolves with the bound port (pass 0 for an ephemeral one). */
  listen(port?: number, host?: string): Promise<number>;
  /** Graceful stop: refuse new connections, end streams, let in-flight work commit, close the DB. */
  close(): Promise<void>;
  /** The execution worker thread (config.execution `thread`), null when execution runs on this loop. */
  readonly executionThread: ExecutionThread | null;
}

/**
 * `thread` runs execution on a second connection to the same SQLite file, built from the configuration alone: what
 * cannot cross a thread or be shared that way is refused at boot, loudly, rather than silently run inline
 * (decision "Execution in a worker thread (issue 12 item 2)").
 */
function refuseThreadMisfit(config: ServiceConfig, options: CreateServiceOptions): void {
  const refuse = (why: string) => {
    throw new Error(`SWITCHYARD_EXECUTION=thread cannot run here: ${why}`);
  };
  const misfit = threadExecutionMisfit(config);
  if (misfit !== null) refuse(misfit);
  if (options.clock !== undefined && options.clock !== systemClock) refuse('an injected clock cannot cross to the worker thread; use the system clock or execution "inline".');
  if (options.keyRing !== undefined) refuse('a key ring passed in cannot cross to the worker thread; give the keys by SWITCHYARD_MASTER_KEYS or SWITCHYARD_MASTER_KEY_FILE.');
}

export async function createService(options: CreateServiceOptions = {}): Promise<Service> {
  const config: ServiceConfig = {
    ...DEFAULT_CONFIG,
    ...options.config,
    ...(options.dbPath ? { dbPath: options.dbPath } : {}),
    ...(options.databaseUrl ? { databaseUrl: databaseUrlFrom(options.databaseUrl, 'databaseUrl') } : {}),
  };
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  // First, so a bad adapter setting fails before anything is opened.
  const adapterChoice = chooseAdapter(config.httpAdapter, options.env ?? process.env);
  if (config.execution === 'thread') refuseThreadMisfit(config, options);
  // The database first: a start-up refused for an unreachable server leaves no generated key file behind.
  const driver = await openStorageDriver(config, logger, clock);
  let keyRing: KeyRing;
  try {
    keyRing = options.keyRing ?? loadMasterKeys(config, options.env ?? process.env, logger);
  } catch (error) {
    await driver.close();
    throw error;
  }
  const store = driver.storage;
  const telemetry = createTelemetry({ store, clock, logger, tracerProvider: options.tracerProvider, writerSamples: driver.writerSamples });
  const thread = config.execution === 'thread' ? createExecutionThread({ config, logger }) : null;
  const sqlite = driver.sqlite;
  const runtime = createRuntime({
    config,
    clock,
    logger,
    store,
    keyRing,
    telemetry,
    paceWriter: driver.paceWriter,
    ...driver.sharing,
    ...(thread !== null && sqlite !== null ? { execution: { side: 'accept' as const, post: thread.post, invalidateCaches: () => sqlite.cache.invalidate() } } : {}),
  });
  if (thread !== null && sqlite !== null) {
    thread.attach(runtime.executionClient!);
    // Writes here to cached tables (authoring, keys, entitlements) drop the worker's caches once committed.
    sqlite.cache.onCommittedWrite(() => thread.post({ t: 'invalidate' }));
  }
  const metrics = createHttpMetrics({ registry: telemetry.registry, tracing: telemetry.tracing });
  watchExecutionQueue(metrics.registry, () => runtime.services.admission.stats());
  // Turns, tools, models and the worker's writer are counted in the worker thread: scrapes add its registry.
  if (runtime.executionClient !== undefined) metrics.alsoFrom(() => runtime.executionClient!.call('metrics'));
  const router = new Router<Services>(allRoutes(metrics));
  const kernel = createKernel(
    {
      router,
      services: runtime.services,
      logger,
      metrics,
      ipLimiter: new TokenBuckets(config.ipRateLimit, clock),
      unlimitedPaths: new Set(['/healthz', '/readyz', '/metrics']),
      jsonMaxDepth: config.jsonMaxDepth,
      // Every id in a 202 is readable at once: a route that may read what an accept wrote first waits until the
      // accepts queued so far are written (a route naming one session only if that one is queued; nothing to wait
      // for when none is). The accept routes themselves do not. Waiting, not writing them here: a forced write held
      // the loop 7-13 ms under load (issue 12).
      beforeRoute: (method, routePath, params) =>
        DEFERRING_ROUTES.has(`${method} ${routePath}`) ? null : runtime.services.sessions.materializer.writtenSoFar(params.sessionId),
    },
    config.bodyLimitBytes,
  );
  let inFlight = 0;
  let drained: (() => void) | null = null;
  let closed = false;
  const trackedKernel: Kernel = {
    bodyLimitFor: kernel.bodyLimitFor,
    async handle(request) {
      // A request that reaches us once close() began (a kept-alive socket, a host app's handler) is refused cleanly.
      if (closed) return errorReply(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down.', undefined, { headers: { 'retry-after': '1' } })).reply;
      inFlight += 1;
      try {
        return await kernel.handle(request);
      } finally {
        inFlight -= 1;
        if (inFlight === 0 && drained) drained();
      }
    },
  };
  const adapterOptions = { kernel: trackedKernel, trustProxy: config.trustProxy, streamQueueLimit: config.streamQueueLimitBytes };
  const server = createHttpServer(adapterChoice, adapterOptions);
  // The embedding handler's own adapter: its streams end on close() like the listening server's.
  let mounted: NodeAdapter | null = null;
  const nodeHandler = (handlerOptions: { basePath?: string } = {}): NodeRequestHandler => {
    mounted ??= new NodeAdapter(adapterOptions);
    metrics.adapterInUse('node');
    return mounted.handler(handlerOptions.basePath);
  };
  try {
    await runtime.start();
    // The worker recovers what was accepted or running before this start; the service answers once it runs.
    await thread?.start();
  } catch (error) {
    await thread?.stop().catch(() => {});
    await driver.close().catch(() => {});
    throw error;
  }

  return {
    services: runtime.services,
    store,
    driver: { engine: driver.engine, target: driver.target, sqlite: driver.sqlite },
    kernel: trackedKernel,
    adapter: server.adapter,
    get handler() {
      return nodeHandler();
    },
    nodeHandler,
    executionThread: thread,
    async applyManifest(manifest) {
      const result = await applyManifest(store, manifest, { clock, keyRing });
      // Schedule triggers the manifest added, changed or paused get their ticks armed or removed now.
      await runtime.services.scheduleTicks.reconcile();
      return result;
    },
    async listen(port = config.port, host = config.host) {
      const bound = await server.listen(host, port);
      metrics.adapterInUse(server.adapter);
      logger.info({ host, port: bound, adapter: server.adapter, adapterReason: adapterChoice.reason, node: process.version, engine: driver.engine, db: driver.target, ...(driver.engine === 'sqlite' ? { durability: config.durability } : {}) }, 'listening');
      return bound;
    },
    async close() {
      if (closed) return;
      closed = true;
      server.close();
      mounted?.close();
      await runtime.stop();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, 10_000).unref();
        });
      }
      // Accepts those requests made after runtime.stop() are written (not dispatched: the next boot or node runs them).
      await runtime.services.sessions.materializer.idle();
      // The worker commits its last units and closes its connection before this side's closes the file.
      await thread?.stop();
      await server.terminate();
      // Last: nothing above is still querying, so no query meets the closed pool and no connection opens after it.
      await driver.close();
      logger.info('closed');
    },
  };
}
