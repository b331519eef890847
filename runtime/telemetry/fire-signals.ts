// Fire metrics, spans and lifecycle log lines, by wrapping the fire service (API, schedule and event firings).
import { Counter, type Registry } from 'prom-client';
import { AppError } from '../errors.js';
import { unredacted, type Logger } from '../logger.js';
import type { FireService } from '../triggers/fire.service.js';
import type { Span, Tracing } from './tracing.js';

/**
 * `switchyard_trigger_fires_total` counts requests to fire (accepted, replayed, refused with their code);
 * `switchyard_trigger_runs_total` counts the Run history records they created, by outcome. The started sessions
 * are dispatched inside the fire's span, so their turns join its trace.
 */
export function createFireSignals(registry: Registry, tracing: Tracing, baseLogger: Logger) {
  // Fire lines carry ids, the source and the outcome only: no redaction pass on every fire (runtime/logger.ts).
  const logger = unredacted(baseLogger);
  const fires = new Counter({ name: 'switchyard_trigger_fires_total', help: 'Trigger fire requests by source (api, schedule, event) and result (accepted, replayed, refused).', labelNames: ['source', 'result', 'code'], registers: [registry] });
  const runs = new Counter({ name: 'switchyard_trigger_runs_total', help: 'Trigger runs recorded, by source and outcome (succeeded, partial, failed, skipped).', labelNames: ['source', 'outcome'], registers: [registry] });

  /** The span records the code as the error leaves it. */
  function refused(source: string, error: unknown): never {
    fires.inc({ source, result: 'refused', code: error instanceof AppError ? error.code : 'INTERNAL' });
    throw error;
  }

  function recorded(span: Span, fields: { source: string; triggerId: string; runId: string; outcome: string; sessions: number }): void {
    fires.inc({ source: fields.source, result: 'accepted', code: 'none' });
    runs.inc({ source: fields.source, outcome: fields.outcome });
    span.setAttributes({ 'switchyard.run.id': fields.runId, 'switchyard.run.outcome': fields.outcome, 'switchyard.run.sessions': fields.sessions });
    logger.info(fields, 'trigger fired');
  }

  return function watchFires(fire: FireService): FireService {
    return {
      fire(caller, body, idempotencyKey, requestId) {
        const attributes = { 'switchyard.trigger.id': body.triggerId, 'switchyard.fire.source': 'api' };
        return tracing.inSpan('trigger fire', { attributes }, async (span) => {
          const answer = await fire.fire(caller, body, idempotencyKey, requestId).catch((error: unknown) => refused('api', error));
          const { runId, sessions } = answer.body;
          if (answer.replayed) {
            fires.inc({ source: 'api', result: 'replayed', code: 'none' });
            span.setAttributes({ 'switchyard.run.id': runId, 'switchyard.fire.replayed': true });
            logger.info({ source: 'api', triggerId: body.triggerId, runId }, 'trigger fire replayed');
            return answer;
          }
          recorded(span, { source: 'api', triggerId: body.triggerId, runId, outcome: answer.outcome ?? 'unknown', sessions: sessions.length });
          const ctx = tracing.active();
          return { ...answer, dispatch: () => tracing.withContext(ctx, answer.dispatch) };
        });
      },
      fanOut(request, alsoWrite) {
        const attributes = { 'switchyard.trigger.id': request.trigger.id, 'switchyard.fire.source': request.source };
        // A schedule tick is woken by a timer: its fire starts a trace of its own.
        return tracing.inSpan('trigger fire', { attributes, root: request.source === 'schedule' }, async (span) => {
          const result = await fire.fanOut(request, alsoWrite).catch((error: unknown) => refused(request.source, error));
          recorded(span, { source: request.source, triggerId: request.trigger.id, runId: result.runId, outcome: result.outcome, sessions: result.sessions.length });
          const ctx = tracing.active();
          return { ...result, dispatch: () => tracing.withContext(ctx, result.dispatch) };
        });
      },
    };
  };
}
