// Prometheus metrics for the HTTP layer, on a registry owned by one service instance.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AdmissionStats } from '../runtime/execution/admission.js';

export interface HttpMetrics {
  readonly registry: Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function createHttpMetrics(options: { defaultMetrics?: boolean } = {}): HttpMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'switchyard_http_requests_total',
    help: 'HTTP requests by route pattern, method and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'switchyard_http_request_duration_seconds',
    help: 'HTTP request handling time by route pattern.',
    labelNames: ['method', 'route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  return {
    registry,
    observe(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
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
