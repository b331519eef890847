// Owns outbound webhook deliveries: one row per (event, endpoint), attempted by durable timers, retried with backoff.
/*
 * Each delivery has one pending timer (kind `webhook-delivery`, target = delivery id). The handler signs and sends
 * one attempt, then records it in one unit of work with the timer's markFired and, on failure, the next timer:
 *   2xx                                             -> delivered
 *   refused destination (private / loopback address while not allowed) -> failed at once (retrying cannot help)
 *   other status, network error or timeout          -> pending, next attempt after retryDelay (backoff + jitter)
 *   the policy's last attempt failing               -> failed
 * Delivery is at least once: a crash after the POST but before its record commits resends it at the next boot with
 * the same webhook-id, which is what receivers dedupe on (Standard Webhooks). Across nodes the scheduler claims the
 * attempt's timer before this handler runs, so one node POSTs it; a node that dies mid-attempt has it retried by
 * another once the claim lapses (runtime/scheduler/scheduler.ts).
 */
import type { WebhookDeliveryStatus } from '../../storage/records/webhooks.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../scheduler/index.js';
import type { KeyRing } from '../vault/index.js';
import type { Telemetry } from '../telemetry/index.js';
import { openSecret, sealedSecretAad } from '../vault/sealed-secret.js';
import { DEFAULT_RETRY_POLICY, retryDelay, type RetryPolicy } from './webhook-retry-policy.js';
import { sendWebhook, type AttemptResult, type WebhookSend } from './webhook-sender.js';

export const WEBHOOK_DELIVERY = 'webhook-delivery';
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface WebhookDeliveries {
  /** Part of the caller's unit (its `tx.repos`): a pending delivery (attempted at once) to every active endpoint of the organization that takes `eventType`. */
  enqueue(repos: Pick<PortRepositories, 'webhooks' | 'timers'>, orgId: string, eventType: string, body: string, runId: string | null): Promise<string[]>;
  /** Part of the caller's unit (its `tx.repos`): drops the pending timers of an endpoint's deliveries (before the endpoint is deleted). */
  cancelPending(repos: Pick<PortRepositories, 'webhooks' | 'timers'>, endpointId: string): Promise<void>;
}

export interface WebhookDeliveriesDeps {
  store: Storage;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
  keyRing: KeyRing;
  scheduler: Scheduler;
  allowPrivateNetworks: boolean;
  retry?: RetryPolicy;
  send?: WebhookSend;
  telemetry: Pick<Telemetry, 'observeWebhookSend' | 'webhookRecorded'>;
}

const isSuccess = (result: AttemptResult): boolean => result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;

export function createWebhookDeliveries(deps: WebhookDeliveriesDeps): WebhookDeliveries {
  const { store, clock, scheduler } = deps;
  const policy = deps.retry ?? DEFAULT_RETRY_POLICY;
  const send = deps.telemetry.observeWebhookSend(deps.send ?? sendWebhook);

  scheduler.on(WEBHOOK_DELIVERY, async (timer, delivery) => {
    const row = await store.repos.webhooks.delivery(timer.targetId);
    if (row === undefined || row.status !== 'pending') return;
    const endpoint = await store.repos.webhooks.endpoint(row.endpointId);
    if (endpoint === undefined) return;
    const attempt = row.attempts + 1;
    const result = await send({
      url: endpoint.url,
      secret: openSecret(deps.keyRing, endpoint.secretSealed, sealedSecretAad.webhookEndpoint(endpoint.orgId, endpoint.id)) as string,
      messageId: row.id,
      body: row.payload,
      now: clock.now(),
      allowPrivateNetworks: deps.allowPrivateNetworks,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
    });
    const recorded = await store.writer.submit(async (tx) => {
      const current = await tx.repos.webhooks.delivery(row.id);
      // Deleted with its endpoint meanwhile (its timer went too): nothing to record.
      if (current === undefined || current.attempts !== row.attempts || current.status !== 'pending') return null;
      await delivery.markFired(tx.repos);
      const now = clock.now();
      let status: WebhookDeliveryStatus = 'failed';
      let nextAttemptAt: number | null = null;
      if (isSuccess(result)) status = 'delivered';
      else if (result.error !== 'refused_destination' && attempt < policy.maxAttempts) {
        status = 'pending';
        nextAttemptAt = now + retryDelay(policy, attempt);
        await scheduler.schedule(tx.repos, { kind: WEBHOOK_DELIVERY, targetId: row.id, dueAt: nextAttemptAt });
      }
      await tx.repos.webhooks.recordAttempt(
        { id: row.id, status, attempts: attempt, nextAttemptAt, lastStatus: result.statusCode, lastError: result.error, updatedAt: now },
        { deliveryId: row.id, attempt, attemptedAt: now, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs },
      );
      return { deliveryId: row.id, endpointId: endpoint.id, attempt, status, statusCode: result.statusCode, error: result.error };
    });
    if (recorded !== null) deps.telemetry.webhookRecorded(recorded);
  });

  return {
    async enqueue(repos, orgId, eventType, body, runId) {
      const now = clock.now();
      const ids: string[] = [];
      for (const endpoint of await repos.webhooks.activeEndpoints(orgId)) {
        if (!endpoint.events.includes(eventType)) continue;
        const id = newId();
        await repos.webhooks.insertDelivery({
          id,
          endpointId: endpoint.id,
          eventType,
          payload: body,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          lastStatus: null,
          lastError: null,
          createdAt: now,
          updatedAt: now,
          runId,
        });
        await scheduler.schedule(repos, { kind: WEBHOOK_DELIVERY, targetId: id, dueAt: now });
        ids.push(id);
      }
      return ids;
    },
    async cancelPending(repos, endpointId) {
      for (const id of await repos.webhooks.pendingDeliveryIds(endpointId)) await scheduler.cancel(repos, WEBHOOK_DELIVERY, id);
    },
  };
}
