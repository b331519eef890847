// One service instance's operations signals: a Prometheus registry, an OpenTelemetry tracer, and the observers
// and wrappers the runtime hooks in at its composition root (one line per hook).
import type { TracerProvider } from '@opentelemetry/api';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { SessionEventBus } from '../events/index.js';
import type { Logger } from '../logger.js';
import type { LanguageModelPort } from '../models/index.js';
import type { SessionDispatcher } from '../turns/dispatcher.js';
import type { HttpIntegrationExecutor } from '../tools/index.js';
import type { FireService } from '../triggers/fire.service.js';
import type { WebhookSend } from '../webhooks/webhook-sender.js';
import { traceEngines } from './engine-spans.js';
import { createFireSignals } from './fire-signals.js';
import { createModelSignals } from './model-signals.js';
import { registerRuntimeGauges, type GaugeSources, type WriterSamples } from './runtime-gauges.js';
import { traceToolCalls } from './tool-spans.js';
import { createTracing, type Tracing } from './tracing.js';
import { registerStreamFeedCounters } from './stream-feed-counters.js';
import { createTurnSignals } from './turn-signals.js';
import { createWebhookSignals, type WebhookAttemptRecord } from './webhook-signals.js';

export interface TelemetryOptions {
  store: Storage;
  clock: Clock;
  logger: Logger;
  /** Where spans go; default the global provider (a no-op until the embedding app or an SDK setup registers one). */
  tracerProvider?: TracerProvider;
  /** Node process metrics (heap, event-loop lag, GC) in the same registry (default true). */
  defaultMetrics?: boolean;
  /** The writer's per-batch samples, when its driver keeps them (the composition root hands SQLite's writer stats). */
  writerSamples?: WriterSamples;
}

export interface Telemetry {
  readonly registry: Registry;
  readonly tracing: Tracing;
  /** Fires: count, span, `trigger fired` log; dispatches the started sessions inside the fire's trace. */
  watchFires(fire: FireService): FireService;
  /** Engines registered on this dispatcher run inside a `turn` / `flow run` span. */
  traceEngines(dispatcher: SessionDispatcher): SessionDispatcher;
  /** Model steps: calls, tokens and latency by provider, a `model.step` span. */
  observeModel(port: LanguageModelPort): LanguageModelPort;
  /** Integration tool calls: a client span active while the upstream request (with `traceparent`) goes out. */
  traceTools(executor: HttpIntegrationExecutor): HttpIntegrationExecutor;
  /** Webhook attempts: count, latency, a client span carrying `traceparent` to the receiver. */
  observeWebhookSend(send: WebhookSend): WebhookSend;
  /** A webhook attempt's committed record: final-status count and the delivery log line. */
  webhookRecorded(record: WebhookAttemptRecord): void;
  /** Scrape-time gauges over the runtime's live objects, and turn/tool-call signals from the event bus. */
  watchRuntime(sources: Omit<GaugeSources, 'repos' | 'writer' | 'writerSamples'> & { bus: Pick<SessionEventBus, 'observe' | 'stats'> }): void;
}

export function createTelemetry(options: TelemetryOptions): Telemetry {
  const { store, clock, logger } = options;
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const tracing = createTracing(options.tracerProvider);
  const webhooks = createWebhookSignals(registry, tracing, logger);
  return {
    registry,
    tracing,
    watchFires: createFireSignals(registry, tracing, logger),
    traceEngines: (dispatcher) => traceEngines(tracing, store.repos, dispatcher),
    observeModel: createModelSignals(registry, tracing),
    traceTools: (executor) => traceToolCalls(tracing, executor),
    observeWebhookSend: webhooks.send,
    webhookRecorded: webhooks.recorded,
    watchRuntime(sources) {
      registerRuntimeGauges(registry, clock, { ...sources, repos: store.repos, writer: store.writer, writerSamples: options.writerSamples });
      sources.bus.observe(createTurnSignals(registry, logger));
      registerStreamFeedCounters(registry, () => sources.bus.stats().feed);
    },
  };
}
