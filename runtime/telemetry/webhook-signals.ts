// Outbound webhook metrics, a span per attempt and the delivery lifecycle log lines.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { WebhookSend } from '../webhooks/webhook-sender.js';
import { WORK_SECONDS } from './buckets.js';
import { failSpan, hostOf, SpanKind, type Tracing } from './tracing.js';

/** One recorded attempt, as its unit of work committed it (ids only: never the secret, payload or URL). */
export interface WebhookAttemptRecord {
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly attempt: number;
  /** The delivery's status after this attempt: `pending` means another attempt is scheduled. */
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly statusCode: number | null;
  readonly error: string | null;
}

export function createWebhookSignals(registry: Registry, tracing: Tracing, logger: Pick<Logger, 'info' | 'warn'>) {
  const attempts = new Counter({ name: 'switchyard_webhook_attempts_total', help: 'Outbound webhook attempts by result (success, http_error, or the transport failure kind).', labelNames: ['result'], registers: [registry] });
  const seconds = new Histogram({ name: 'switchyard_webhook_attempt_duration_seconds', help: 'Outbound webhook attempt time.', buckets: WORK_SECONDS, registers: [registry] });
  const deliveries = new Counter({ name: 'switchyard_webhook_deliveries_total', help: 'Outbound webhook deliveries that reached a final status (delivered, failed).', labelNames: ['status'], registers: [registry] });

  return {
    /** The sender, observed: the span is active while the POST goes out, so the receiver gets `traceparent`. */
    send(send: WebhookSend): WebhookSend {
      return (attempt) =>
        tracing.inSpan('webhook attempt', { kind: SpanKind.CLIENT, root: true, attributes: { 'switchyard.webhook.delivery.id': attempt.messageId, 'http.request.method': 'POST', 'server.address': hostOf(attempt.url) } }, async (span) => {
          const result = await send(attempt);
          const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
          const label = ok ? 'success' : result.statusCode !== null ? 'http_error' : (result.error ?? 'unavailable');
          attempts.inc({ result: label });
          seconds.observe(result.durationMs / 1000);
          if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
          if (!ok) failSpan(span, label);
          return result;
        });
    },

    /** After the attempt's unit of work committed. */
    recorded(record: WebhookAttemptRecord): void {
      const fields = { deliveryId: record.deliveryId, endpointId: record.endpointId, attempt: record.attempt, status: record.statusCode, error: record.error };
      if (record.status === 'delivered') {
        deliveries.inc({ status: 'delivered' });
        logger.info(fields, 'webhook delivered');
      } else if (record.status === 'failed') {
        deliveries.inc({ status: 'failed' });
        logger.warn(fields, 'webhook delivery failed');
      } else {
        logger.warn(fields, 'webhook delivery attempt failed');
      }
    },
  };
}
