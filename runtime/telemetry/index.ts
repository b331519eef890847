// Re-exports the operations signals (metrics registry, tracing, observers) by name.
export { createTelemetry, type Telemetry, type TelemetryOptions } from './telemetry.js';
export { createTracing, injectTraceHeaders, hostOf, failSpan, type Tracing } from './tracing.js';
export { HTTP_SECONDS, WORK_SECONDS } from './buckets.js';
export type { WebhookAttemptRecord } from './webhook-signals.js';
