// HTTP signals on a registry owned by one service instance: request counts and latency, open streams, request spans.
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { trace } from '@opentelemetry/api';
import { createTracing, HTTP_SECONDS, type Tracing } from '../runtime/telemetry/index.js';
import type { HttpRequest, Reply, StreamReply } from './types.js';
import type { AdmissionStats } from '../runtime/execution/admission.js';

export interface HttpMetrics {
  readonly registry: Registry;
  /** Counts the request and names its span (`GET /api/v1/...` by route pattern: never the raw path or query). */
  observe(method: string, route: string, status: number, seconds: number): void;
  /** Counts the stream as open until its sink closes, whichever adapter serves it. */
  trackStream(route: string, reply: StreamReply): StreamReply;
  /** Runs the request inside a server span that continues the caller's `traceparent`. */
  traceRequest(request: HttpRequest, handle: () => Promise<Reply>): Promise<Reply>;
  /** Marks an HTTP adapter (uws, node) as serving this service. */
  adapterInUse(adapter: string): void;
  /**
   * Another registry's metrics to add to every scrape (the execution worker thread's, fetched per scrape): series of
   * the same name are summed, as prom-client aggregates cluster workers. A failed fetch leaves them out of that scrape.
   */
  alsoFrom(source: () => Promise<MetricObjectWithValues<MetricValue<string>>[]>): void;
  /** The scrape: this registry's metrics, merged with the sources added by `alsoFrom`. */
  exposition(): Promise<string>;
}

export interface HttpMetricsOptions {
  /** The service's registry (runtime telemetry); a new one when absent (benchmarks, kernel tests). */
  registry?: Registry;
  /** Node process metrics, only when this creates the registry (default true). */
  defaultMetrics?: boolean;
  tracing?: Tracing;
}

export function createHttpMetrics(options: HttpMetricsOptions = {}): HttpMetrics {
  const registry = options.registry ?? new Registry();
  if (options.registry === undefined && (options.defaultMetrics ?? true)) collectDefaultMetrics({ register: registry });
  const tracing = options.tracing ?? createTracing();
  const registers = [registry];
  const requests = new Counter({ name: 'switchyard_http_requests_total', help: 'HTTP requests by route pattern, method and status.', labelNames: ['method', 'route', 'status'], registers });
  const duration = new Histogram({ name: 'switchyard_http_request_duration_seconds', help: 'HTTP request handling time by route pattern (for streams: until the stream opened).', labelNames: ['method', 'route'], buckets: HTTP_SECONDS, registers });
  const streams = new Gauge({ name: 'switchyard_sse_streams_open', help: 'Open Server-Sent Events streams by route pattern (session streams, MCP responses).', labelNames: ['route'], registers });
  const adapterInfo = new Gauge({
    name: 'switchyard_http_adapter_info',
    help: 'HTTP adapters serving this service (1 each): uws (uWebSockets.js) or node (node:http, also the embedding handler).',
    labelNames: ['adapter'],
    registers,
  });
  const sources: Array<() => Promise<MetricObjectWithValues<MetricValue<string>>[]>> = [];
  return {
    registry,
    alsoFrom: (source) => void sources.push(source),
    async exposition() {
      if (sources.length === 0) return registry.metrics();
      const others = await Promise.all(sources.map((source) => source().catch(() => null)));
      const all = [await registry.getMetricsAsJSON(), ...others.filter((other) => other !== null)];
      return all.length === 1 ? registry.metrics() : AggregatorRegistry.aggregate(all).metrics();
    },
    adapterInUse(adapter) {
      adapterInfo.set({ adapter }, 1);
    },
    observe(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
      // Called inside the request's span (traceRequest): the route is known only once the router matched.
      trace.getActiveSpan()?.updateName(`${method} ${route}`).setAttributes({ 'http.route': route, 'http.response.status_code': status });
    },
    trackStream(route, reply) {
      return {
        ...reply,
        open(sink) {
          if (sink.closed) return reply.open(sink);
          streams.inc({ route });
          sink.onClose(() => streams.dec({ route }));
          reply.open(sink);
        },
      };
    },
    traceRequest(request, handle) {
      const attributes = { 'http.request.method': request.method, 'switchyard.request.id': request.requestId };
      return tracing.inServerSpan(request.method, request.headers, attributes, handle);
    },
  };
}

/** The execution queue's bound, depth, measured drain rate and refusals, read at scrape time (issue 12). */
export function watchExecutionQueue(registry: Registry, stats: () => AdmissionStats): void {
  const gauge = (name: string, help: string, read: (s: AdmissionStats) => number) =>
    new Gauge({ name, help, registers: [registry], collect() { this.set(read(stats())); } });
  gauge('switchyard_execution_queue_depth', 'Executions accepted and not yet started.', (s) => s.queued);
  gauge('switchyard_execution_queue_limit', 'Queued executions admitted at most now (drain rate x limit seconds, capped).', (s) => s.limit);
  gauge('switchyard_execution_queue_limit_seconds', 'Configured seconds of work the queue may hold.', (s) => s.limitSeconds);
  gauge('switchyard_execution_drain_rate', 'Measured executions started per second while work was waiting.', (s) => s.ratePerSecond);
  // Counters advanced at scrape time by what the admission counted since the last scrape.
  const counter = (name: string, help: string, read: (s: AdmissionStats) => number) => {
    let seen = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = read(stats());
        this.inc(now - seen);
        seen = now;
      },
    });
  };
  counter('switchyard_execution_refused_total', 'Run requests refused with 429 OVERLOADED.', (s) => s.refused);
  counter('switchyard_executions_started_total', 'Executions picked up by the execution side.', (s) => s.startedTotal);
}
