// The transport-neutral request lifecycle (docs/lifecycle.md): rate limit -> route -> credential, body, query -> handler -> error envelope -> access log -> after.
import type { Logger } from 'pino';
import { unredacted } from '../runtime/logger.js';
import { AppError, notFound } from '../runtime/errors.js';
import { errorReply } from './error-reply.js';
import type { HttpMetrics } from './metrics.js';
import type { TokenBuckets } from '../runtime/rate-limit.js';
import type { RouteLookup, Router } from './router.js';
import { invokeRoute } from './route-invoke.js';
import { isStreamReply, type HandlerReply, type HttpRequest, type Reply } from './types.js';

export interface KernelDeps<S> {
  router: Router<S>;
  services: S;
  logger: Logger;
  metrics: HttpMetrics;
  ipLimiter: TokenBuckets;
  /** Paths exempt from the per-IP limit (health probes). */
  unlimitedPaths?: Set<string>;
  /** Deepest JSON nesting a body may have (config.jsonMaxDepth); readJson enforces it. */
  jsonMaxDepth?: number;
  /** Runs before a matched route's steps; a promise holds the route until it settles (the service waits for accepted work a read could name; docs/lifecycle.md). */
  beforeRoute?: (method: string, routePath: string, params: Readonly<Record<string, string>>) => Promise<void> | null | undefined;
}

export interface Kernel {
  handle(request: HttpRequest): Promise<Reply>;
  /** The route's body limit (null when no route matches); the lookup is kept for `handle` of the same request. */
  bodyLimitFor(request: HttpRequest): number | null;
}

export function createKernel<S>(deps: KernelDeps<S>, defaultBodyLimit: number): Kernel {
  const { router, services, logger, metrics, ipLimiter } = deps;
  const unlimited = deps.unlimitedPaths ?? new Set<string>();
  // The access line holds the request id, method, route pattern, status and time: nothing redaction would censor.
  const accessLog = unredacted(logger);
  // The adapter asks for the body limit before reading the body, the kernel for the route after: one lookup serves both.
  const lookups = new WeakMap<HttpRequest, RouteLookup<S>>();
  const lookup = (request: HttpRequest): RouteLookup<S> => {
    const known = lookups.get(request);
    if (known !== undefined) return known;
    const found = router.lookup(request.method, request.path);
    lookups.set(request, found);
    return found;
  };

  const kernel: Kernel = {
    bodyLimitFor(request) {
      const found = lookup(request);
      if (!found || !('match' in found)) return null;
      return found.match.route.bodyLimit ?? defaultBodyLimit;
    },

    async handle(request) {
      const started = performance.now();
      let routeLabel = 'unmatched';
      let reply: Reply;
      let after: (() => void) | undefined;
      try {
        if (!unlimited.has(request.path)) ipLimiter.take(`ip:${request.ip}`);
        const found = lookup(request);
        if (!found) throw notFound();
        if (!('match' in found)) {
          throw new AppError('METHOD_NOT_ALLOWED', 'Method not allowed on this path.', undefined, {
            headers: { allow: found.allowed.join(', ') },
          });
        }
        routeLabel = found.match.route.path;
        // Transport-neutral backstop: an adapter should refuse an oversized body while reading, but none reaches a handler.
        const bodyLimit = found.match.route.bodyLimit ?? defaultBodyLimit;
        if (request.body.length > bodyLimit) throw payloadTooLarge(bodyLimit);
        request.params = found.match.params;
        const ready = deps.beforeRoute?.(request.method, routeLabel, request.params);
        if (ready) await ready;
        if (deps.jsonMaxDepth !== undefined) request.jsonMaxDepth = deps.jsonMaxDepth;
        ({ after, ...reply } = await invokeRoute(found.match.route, request, services) as HandlerReply);
      } catch (error) {
        const { reply: failure, unexpected } = errorReply(error);
        if (unexpected) logger.error({ reqId: request.requestId, route: routeLabel, err: safeError(error) }, 'unexpected error');
        reply = failure;
      }
      const ms = performance.now() - started;
      metrics.observe(request.method, routeLabel, reply.status, ms / 1000);
      // The access log names the route pattern, never headers or the query string (they can carry secrets).
      accessLog.info({ reqId: request.requestId, method: request.method, route: routeLabel, status: reply.status, ms: Math.round(ms * 10) / 10 }, 'request');
      if (after !== undefined && reply.status < 400) runAfterReply(after, logger, request.requestId, routeLabel);
      if (isStreamReply(reply)) return metrics.trackStream(routeLabel, reply);
      reply.headers = { ...reply.headers, 'x-request-id': request.requestId };
      return reply;
    },
  };
  return { bodyLimitFor: kernel.bodyLimitFor, handle: (request) => metrics.traceRequest(request, () => kernel.handle(request)) };
}

/**
 * The after-step: both adapters write the reply in the continuation of `await kernel.handle()` (a microtask), so a
 * macrotask queued now runs once the reply is handed to the socket: a 202 goes out before the engine work it
 * announces. A failure there is logged, never thrown (the client already has its answer).
 */
function runAfterReply(after: () => void, logger: Logger, reqId: string, route: string): void {
  setImmediate(() => {
    try {
      after();
    } catch (error) {
      logger.error({ reqId, route, err: safeError(error) }, 'after-reply step failed');
    }
  });
}

export function payloadTooLarge(limit: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes.`, { limitBytes: limit });
}

/** Error details for the log: class and stack only, never a message that may quote request data. */
function safeError(error: unknown): { type: string; stack?: string } {
  if (error instanceof Error) return { type: error.name, stack: error.stack?.split('\n').slice(1, 8).join('\n') };
  return { type: typeof error };
}
