// Example OpenTelemetry setup for Switchyard: `node --import ./examples/otel-setup.mjs <your entry point>`.
//
// Switchyard traces through @opentelemetry/api only; this file is what turns those spans on. It needs, in the app
// that runs Switchyard: @opentelemetry/sdk-trace-base, @opentelemetry/context-async-hooks, @opentelemetry/core,
// @opentelemetry/resources and @opentelemetry/exporter-trace-otlp-http. It reads the standard variables
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), OTEL_EXPORTER_OTLP_HEADERS and
// OTEL_SERVICE_NAME, plus OTEL_BSP_SCHEDULE_DELAY (ms between exports, default 5000). An app that already runs
// @opentelemetry/sdk-node needs none of this: Switchyard's spans join whatever provider it registered.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || 'switchyard' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: Number(process.env.OTEL_BSP_SCHEDULE_DELAY) || 5000 })],
});
trace.setGlobalTracerProvider(provider);
// Spans follow the work across awaits (request -> fire -> turn -> tool call) through AsyncLocalStorage.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
// W3C `traceparent` in and out: incoming requests continue the caller's trace; tool calls and webhooks carry it upstream.
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
// Export what is buffered when the process is asked to stop (the service closes itself on the same signals).
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void provider.shutdown());
