// The service's OpenTelemetry tracer: spans through @opentelemetry/api only, a no-op until an SDK is registered.
import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { AppError } from '../errors.js';

export { SpanKind, type Attributes, type Context, type Span };

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Start a trace of its own: work a timer woke up has no meaningful parent in whatever context it ran. */
  root?: boolean;
}

export interface Tracing {
  /** Runs `work` inside a new active span (child of the active one); ends it, recording a throw as an error. */
  inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T>;
  /** A span for an incoming request, continuing the caller's `traceparent` when it sent one. */
  inServerSpan<T>(name: string, headers: Readonly<Record<string, string>>, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T>;
  /** A span that is not made active (its work has no child spans), child of the active one; the caller ends it. */
  startSpan(name: string, options: SpanOptions): Span;
  /** The context active now, to run later work (a dispatch after the answer) under the same trace. */
  active(): Context;
  /** Runs `work` with `ctx` active. */
  withContext<T>(ctx: Context, work: () => T): T;
}

/**
 * Spans go to `provider` (default: the global one, which the embedding app or `node --import` of an SDK setup
 * registers). The global API hands out a proxy tracer, so a provider registered after the service was built counts.
 */
export function createTracing(provider?: TracerProvider): Tracing {
  const cached: Tracer = (provider ?? trace.getTracerProvider()).getTracer('switchyard');
  const tracer = (): Tracer => cached;
  // Asked per span, so a provider or propagator registered after the service was built still counts.
  const off = provider === undefined ? tracingOff : () => false;

  async function run<T>(span: Span, work: (span: Span) => Promise<T>): Promise<T> {
    try {
      return await work(span);
    } catch (error) {
      // A code or the error's class only: messages can quote request data.
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof AppError ? error.code : error instanceof Error ? error.name : typeof error });
      throw error;
    } finally {
      span.end();
    }
  }

  return {
    inSpan: (name, options, work) => (off() ? run(NON_RECORDING, work) : tracer().startActiveSpan(name, { kind: SpanKind.INTERNAL, ...options }, (span) => run(span, work))),
    inServerSpan(name, headers, attributes, work) {
      if (off()) return run(NON_RECORDING, work);
      const parent = propagation.extract(ROOT_CONTEXT, headers);
      return tracer().startActiveSpan(name, { kind: SpanKind.SERVER, attributes }, parent, (span) => run(span, work));
    },
    startSpan: (name, options) => (off() ? NON_RECORDING : tracer().startSpan(name, { kind: SpanKind.INTERNAL, ...options })),
    active: () => context.active(),
    withContext: (ctx, work) => context.with(ctx, work),
  };
}

/**
 * With no tracer provider behind the global proxy and no propagator, every span the API would hand out is the
 * same non-recording span with an invalid context, and no traceparent can be read or sent: nothing could observe
 * one, so the service skips making them (and the context switch around each), ~4 spans per fire.
 */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();
const NON_RECORDING: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

function tracingOff(): boolean {
  const global = trace.getTracerProvider();
  return global instanceof ProxyTracerProvider && global.getDelegate() === NOOP_PROVIDER && propagation.fields().length === 0;
}

/** Marks the span failed with a code (never a message: upstream messages can quote secrets). */
export function failSpan(span: Span, code: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

/** Adds the active trace's `traceparent` (and `tracestate`) to outgoing headers; nothing when tracing is off. */
export function injectTraceHeaders(headers: Record<string, string>): void {
  propagation.inject(context.active(), headers);
}

/** The host of a URL for `server.address` (never the path or query, which can carry arguments or secrets). */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'invalid';
  }
}
