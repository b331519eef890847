// Builds the outbound webhook services: deliveries (durable timers), endpoint registration, run settlement notices.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { SessionEventBus } from '../events/index.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../scheduler/index.js';
import type { KeyRing } from '../vault/index.js';
import { createRunSettlement, type RunSettlement } from './run-settlement.js';
import { createWebhookDeliveries, type WebhookDeliveries } from './webhook-deliveries.js';
import { createWebhookEndpoints, type WebhookEndpoints } from './webhook-endpoints.service.js';
import type { RetryPolicy } from './webhook-retry-policy.js';
import type { Telemetry } from '../telemetry/index.js';

export interface WebhookServices {
  webhooks: WebhookEndpoints;
  webhookDeliveries: WebhookDeliveries;
  runSettlement: RunSettlement;
}

export interface WebhookServicesDeps {
  store: Storage;
  clock: Clock;
  logger: Logger;
  keyRing: KeyRing;
  scheduler: Scheduler;
  bus: Pick<SessionEventBus, 'observe'>;
  /** ServiceConfig.webhooksAllowPrivateNetworks: checked at registration and on the address each delivery dials. */
  allowPrivateNetworks: boolean;
  retry?: RetryPolicy;
  telemetry: Pick<Telemetry, 'observeWebhookSend' | 'webhookRecorded'>;
}

export function createWebhookServices(deps: WebhookServicesDeps): WebhookServices {
  const webhookDeliveries = createWebhookDeliveries(deps);
  return {
    webhookDeliveries,
    webhooks: createWebhookEndpoints({ ...deps, deliveries: webhookDeliveries }),
    runSettlement: createRunSettlement({ ...deps, deliveries: webhookDeliveries }),
  };
}
