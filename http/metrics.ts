// Prometheus metrics for the HTTP layer, on a registry owned by one service instance.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HttpMetrics {
  readonly registry: Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
  /** Marks an HTTP adapter (uws, node) as serving this service. */
  adapterInUse(adapter: string): void;
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
  const adapterInfo = new Gauge({
    name: 'switchyard_http_adapter_info',
    help: 'HTTP adapters serving this service (1 each): uws (uWebSockets.js) or node (node:http, also the embedding handler).',
    labelNames: ['adapter'],
    registers: [registry],
  });
  return {
    registry,
    adapterInUse(adapter) {
      adapterInfo.set({ adapter }, 1);
    },
    observe(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
    },
  };
}
