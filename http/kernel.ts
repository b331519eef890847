// The transport-neutral request lifecycle: rate limit -> route -> handler -> error envelope -> access log.
import type { Logger } from 'pino';
import { AppError, notFound } from '../runtime/errors.js';
import { errorReply } from './error-reply.js';
import type { HttpMetrics } from './metrics.js';
import type { TokenBuckets } from '../runtime/rate-limit.js';
import type { Router } from './router.js';
import { isStreamReply, type HttpRequest, type Reply } from './types.js';

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
}

export interface Kernel {
  handle(request: HttpRequest): Promise<Reply>;
  bodyLimitFor(method: string, path: string): number | null;
}

export function createKernel<S>(deps: KernelDeps<S>, defaultBodyLimit: number): Kernel {
  const { router, services, logger, metrics, ipLimiter } = deps;
  const unlimited = deps.unlimitedPaths ?? new Set<string>();

  const kernel: Kernel = {
    bodyLimitFor(method, path) {
      const found = router.lookup(method, path);
      if (!found || !('match' in found)) return null;
      return found.match.route.bodyLimit ?? defaultBodyLimit;
    },

    async handle(request) {
      const started = performance.now();
      let routeLabel = 'unmatched';
      let reply: Reply;
      try {
        if (!unlimited.has(request.path)) ipLimiter.take(`ip:${request.ip}`);
        const found = router.lookup(request.method, request.path);
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
        if (deps.jsonMaxDepth !== undefined) request.jsonMaxDepth = deps.jsonMaxDepth;
        reply = await found.match.route.handler(request, services);
      } catch (error) {
        const { reply: failure, unexpected } = errorReply(error);
        if (unexpected) logger.error({ reqId: request.requestId, route: routeLabel, err: safeError(error) }, 'unexpected error');
        reply = failure;
      }
      const ms = performance.now() - started;
      metrics.observe(request.method, routeLabel, reply.status, ms / 1000);
      // The access log names the route pattern, never headers or the query string (they can carry secrets).
      logger.info({ reqId: request.requestId, method: request.method, route: routeLabel, status: reply.status, ms: Math.round(ms * 10) / 10 }, 'request');
      if (isStreamReply(reply)) return metrics.trackStream(routeLabel, reply);
      reply.headers = { ...reply.headers, 'x-request-id': request.requestId };
      return reply;
    },
  };
  return { bodyLimitFor: kernel.bodyLimitFor, handle: (request) => metrics.traceRequest(request, () => kernel.handle(request)) };
}

export function payloadTooLarge(limit: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes.`, { limitBytes: limit });
}

/** Error details for the log: class and stack only, never a message that may quote request data. */
function safeError(error: unknown): { type: string; stack?: string } {
  if (error instanceof Error) return { type: error.name, stack: error.stack?.split('\n').slice(1, 8).join('\n') };
  return { type: typeof error };
}
