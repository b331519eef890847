// Builds the runtime services over one store: the composition root below the HTTP layer.
import type { SessionOwnership } from '../storage/port/ownership.js';
import type { Storage } from '../storage/port/storage.js';
import { createAuthenticator } from './auth/authenticator.js';
import { createAuthoringService } from './authoring/authoring.service.js';
import { createSignInService } from './auth/sign-in.js';
import type { Clock } from './clock.js';
import type { ServiceConfig } from './config.js';
import type { Logger } from './logger.js';
import { TokenBuckets } from './rate-limit.js';
import type { Services } from './services.js';
import type { KeyRing } from './vault/index.js';
import { createActorRegistry } from './actors/index.js';
import { createAdmission } from './execution/admission.js';
import { createExecutionClient, type ExecutionClient } from './thread/execution-client.js';
import { createExecutionHost, createForwardingAdmission, type ExecutionHost } from './thread/execution-host.js';
import type { ToMain, ToWorker } from './thread/protocol.js';
import { createPacer, type Pacer } from './execution/pacer.js';
import { createSessionEventBus } from './events/index.js';
import { createScheduler } from './scheduler/index.js';
import { createSessionsRuntime } from './sessions/sessions.runtime.js';
import { createTurnsRuntime } from './turns/turns.runtime.js';
import { registerFlows } from './flows/index.js';
import { createPartnersRuntime } from './partners/partners.runtime.js';
import { createManagementRuntime } from './management/management.runtime.js';
import { createTriggerServices } from './triggers/trigger-services.js';
import { createMcpRuntime } from './mcp/index.js';
import { createTriggerSources } from './triggers/trigger-sources.js';
import { createWebhookServices } from './webhooks/webhook-services.js';
import { createManageServices } from './manage/manage-services.js';
import { createTelemetry, type Telemetry } from './telemetry/index.js';

export interface RuntimeDeps {
  config: ServiceConfig;
  clock: Clock;
  logger: Logger;
  store: Storage;
  keyRing: KeyRing;
  /** Operations signals (metrics registry, tracer); default: a new one on the global tracer provider. */
  telemetry?: Telemetry;
  /**
   * Hands the execution pacer to a writer that commits in its slices (SQLite's group commit: `store.writer.paceWith`);
   * the composition root knows the driver, the runtime does not.
   */
  paceWriter?: (pacer: Pacer) => void;
  /**
   * This process alone runs timers on its database (SQLite): the scheduler drops a crashed predecessor's timer claims
   * at start instead of waiting for them to lapse. Leave unset on a database other nodes share (PostgreSQL).
   */
  soleScheduler?: boolean;
  /**
   * N nodes on one PostgreSQL database: which node runs a session's turns (storage/postgres/session-ownership.ts).
   * Absent on one process: every session is this one's and actors' snapshots stay resident.
   */
  ownership?: SessionOwnership;
  /**
   * SWITCHYARD_EXECUTION=thread: which side of the split this runtime is (absent: both, on this loop). `accept` (the
   * main thread) runs no turn, flow run, recovery or timer: dispatches, cancels and approval decisions go to the
   * worker through `post`. `execute` (the worker thread) runs all of them and posts its commits, queue counts and
   * answers back. `invalidateCaches` drops this side's read caches when the other side wrote a cached table.
   */
  execution?: ExecutionSide;
}

export type ExecutionSide =
  | { side: 'accept'; post(message: ToWorker): void; invalidateCaches(): void }
  | { side: 'execute'; post(message: ToMain): void; invalidateCaches(): void };

export interface Runtime {
  services: Services;
  readonly telemetry: Telemetry;
  /** The accept side's link to the execution worker (execution side `accept`): hand it the worker's messages. */
  readonly executionClient?: ExecutionClient;
  /** The worker's end of the link (execution side `execute`): hand it main's messages. */
  readonly executionHost?: ExecutionHost;
  /** Boot recovery and background loops; called once the store is open. */
  start(): Promise<void>;
  /**
   * Stops background loops and aborts running turns; resolves once no loop, pump, timer delivery or stream read is
   * still querying (the store may be closed next). In-flight units of work are flushed by the store.
   */
  stop(): Promise<void>;
}

export function createRuntime(deps: RuntimeDeps): Runtime {
  const { config, clock, logger, store, keyRing } = deps;
  const auth = createAuthenticator(store, clock);
  const telemetry = deps.telemetry ?? createTelemetry({ store, clock, logger });
  let ready = false;
  const side = deps.execution;
  const accepting = side?.side === 'accept';
  // Built before the runtime's parts: the accept side's dispatcher and event signals are this client's.
  const client: ExecutionClient | undefined = side?.side === 'accept'
    ? createExecutionClient({ post: side.post, admission: { started: (n) => admission.started(n), enqueued: (n) => admission.enqueued(n), release: (n) => admission.release(n), bound: (t) => admission.bound(t) }, invalidateCaches: side.invalidateCaches })
    : undefined;
  // One registry, scheduler and event bus per service instance: every actor kind and timer kind shares them.
  const events = createSessionEventBus({
    repo: store.repos.sessionEvents,
    writer: store.writer,
    clock,
    // Present on PostgreSQL: streams here also carry events committed by other nodes, and the same connection hears
    // that another node seized a session this one runs (a cancel there), so the run here stops at once.
    signals: client?.signals ?? (store.signals && { listen: (handlers) => store.signals!.listen({ ...handlers, onSeized: (sessionId) => deps.ownership?.revoked?.(sessionId) }) }),
    onError: (error, context) => logger.error({ ...context, err: error instanceof Error ? error.message : String(error) }, 'session event delivery failed'),
  });
  // Snapshots stay resident only where this registry alone steps its actors: with N nodes, or with the execution
  // thread (main steps provisioning claims, the worker their expiry timers), every step reads its row.
  const actors = createActorRegistry({ store, clock, logger, residentSnapshots: deps.ownership === undefined && side === undefined });
  const admission = side?.side === 'execute' ? createForwardingAdmission(side.post) : createAdmission({ queueLimitSeconds: config.queueLimitSeconds, queueMaxExecutions: config.queueMaxExecutions, initialRatePerSecond: config.queueInitialRate });
  const scheduler = createScheduler({ store, clock, logger, sole: deps.soleScheduler === true, deliveredElsewhere: side?.side === 'accept' ? () => side.post({ t: 'poke' }) : undefined });
  // One pacer for everything execution does on this loop: turn steps, and the callers a commit resumes, share its slice.
  const pacer = createPacer();
  deps.paceWriter?.(pacer);
  // The materializer is built with the sessions runtime below; the dispatcher's idle() waits for its pending accepts.
  const intake = { idle: (): Promise<void> => sessions.materializer.idle() };
  const built = createTurnsRuntime({ config, clock, logger, store, keyRing, bus: events, registry: actors, scheduler, admission, telemetry, intake, pacer, ownership: deps.ownership, dispatcher: client?.dispatcher });
  // The worker is the one turn mover: cancels and decisions run there, where the turns' actors live.
  const turns = client === undefined ? built : {
    ...built,
    cancels: { cancel: (...args: Parameters<typeof built.cancels.cancel>) => client.call<void>('cancel', ...args) },
    decisions: { decide: (...args: Parameters<typeof built.decisions.decide>) => client.call<Awaited<ReturnType<typeof built.decisions.decide>>>('decide', ...args) },
  };
  // Flows run on the same dispatcher, grants and tool providers (issue 5 item 5).
  const flows = registerFlows({ ...turns.engineDeps, dispatcher: turns.dispatcher });
  // With the execution thread, main's accepts are written by the worker's materializer (client.materializer).
  const sessions = createSessionsRuntime({ clock, store, bus: events, admission, turns, materializer: client?.materializer });
  const signIn = createSignInService({ store, clock, auth, sessionTtlMs: config.consoleSessionTtlMs });
  const partners = createPartnersRuntime({
    store,
    clock,
    logger,
    keyRing,
    registry: actors,
    scheduler,
    signIn,
    turnApprovals: sessions.approvals,
    runApprovals: flows.runApprovals,
  });
  const mcp = createMcpRuntime({ config, clock, store, bus: events, sessions });
  const triggers = createTriggerServices({ store, clock, logger, keyRing, sessionStarter: sessions.starter, scheduler, admission, materializer: sessions.materializer });
  // Outbound webhooks watch every firing (API, schedule, event) through the wrapped fire service.
  const webhooks = createWebhookServices({ store, clock, logger, keyRing, scheduler, bus: events, allowPrivateNetworks: config.webhooksAllowPrivateNetworks, telemetry });
  const fire = telemetry.watchFires(webhooks.runSettlement.watchFires(triggers.fire));
  telemetry.watchRuntime({ actors, mcpSessions: mcp.sessions, bus: events });
  const triggerSources = createTriggerSources({ store, clock, logger, keyRing, scheduler, fire, jsonMaxDepth: config.jsonMaxDepth });
  const services: Services = {
    config,
    clock,
    logger,
    store,
    auth,
    keyRing,
    signIn,
    authoring: createAuthoringService({ store, clock }),
    keyLimiter: new TokenBuckets(config.keyRateLimit, clock),
    // With the execution thread: not ready while it restarts (accepts would queue, nothing would run them yet).
    ready: () => ready && (client?.running ?? true),
    events,
    actors,
    admission,
    scheduler,
    sessions,
    runApprovals: flows.runApprovals,
    partners,
    management: createManagementRuntime({ store, clock, keyRing }),
    mcp,
    ...triggers,
    fire,
    ...triggerSources,
    ...webhooks,
    ...createManageServices({ store, clock, scheduleTicks: triggerSources.scheduleTicks }),
  };
  const executionHost = side?.side === 'execute'
    ? createExecutionHost({
      post: side.post,
      dispatcher: turns.dispatcher,
      materializer: sessions.materializer,
      bus: events,
      scheduler,
      invalidateCaches: side.invalidateCaches,
      methods: {
        cancel: (...args: Parameters<typeof turns.cancels.cancel>) => turns.cancels.cancel(...args),
        decide: (...args: Parameters<typeof turns.decisions.decide>) => turns.decisions.decide(...args),
        metrics: () => telemetry.registry.getMetricsAsJSON(),
      },
      onError: (error, where) => logger.error({ where, err: error instanceof Error ? error.message : String(error) }, 'execution thread task failed'),
    })
    : undefined;
  return {
    services,
    telemetry,
    executionClient: client,
    executionHost,
    async start() {
      if (accepting) {
        // The worker recovers, delivers timers and reconciles at its own boot; this side only streams its commits.
        await events.start();
        ready = true;
        return;
      }
      // Owners recover their work first, then timers that fell due while the process was down fire once.
      // Streams follow other nodes' commits before anything here can be subscribed to.
      await events.start();
      await sessions.start();
      await scheduler.start();
      await triggers.claimSweeper?.start();
      // After the overdue ticks fired once: arm schedule triggers that have no tick (e.g. applied while down).
      await triggerSources.scheduleTicks.reconcile();
      await webhooks.runSettlement.reconcile();
      ready = true;
    },
    async stop() {
      ready = false;
      // Waiting MCP tools/call requests answer now ("still running"); their turns resume at the next boot.
      mcp.stop();
      // Running turns are abandoned, not failed: their rows say where they were, and the next boot resumes them.
      await sessions.stop();
      built.close();
      webhooks.runSettlement.close();
      await webhooks.runSettlement.idle();
      // Timer deliveries in flight finish first: a handler still querying would otherwise meet the closed pool.
      await scheduler.close();
      actors.close();
      await deps.ownership?.close?.();
      await events.close();
      // Last: the deltas flushed above are signalled to main too.
      executionHost?.close();
    },
  };
}
