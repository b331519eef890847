// Owns the trigger record the console sees (POST /triggers 201): common fields, per-type config, never a secret.
import type { Trigger, TriggerType } from '../../storage/records/triggers.js';
import { toIso } from '../clock.js';

export type TriggerConfigView =
  | Record<string, never>
  | { cron: string; timezone: string | null; input: Record<string, unknown>; nextRunAt: string | null }
  | { sourceIntegrationId: string; connectionId: string; eventType: string; eventFilter: unknown; hasEndpointSecret: boolean };

export interface TriggerView {
  id: string;
  type: TriggerType;
  domainId: string;
  name: string;
  active: boolean;
  /** Subscribed agent and flow ids, in firing order. */
  subscribers: string[];
  config: TriggerConfigView;
  /** Event triggers: where the provider delivers events (POST, Standard Webhooks signed). */
  deliveryUrl?: string;
  createdBy: string | null;
  createdAt: string;
}

export const eventDeliveryPath = (triggerId: string): string => `/api/v1/events/${triggerId}`;

export function triggerView(
  trigger: Trigger,
  subscribers: readonly string[],
  extras: { nextRunAt: number | null; baseUrl: string | null },
): TriggerView {
  const stored = trigger.config;
  let config: TriggerConfigView = {};
  if (trigger.type === 'schedule') {
    config = {
      cron: String(stored.cron),
      timezone: typeof stored.timezone === 'string' ? stored.timezone : null,
      input: (stored.input as Record<string, unknown> | undefined) ?? {},
      nextRunAt: extras.nextRunAt === null ? null : toIso(extras.nextRunAt),
    };
  } else if (trigger.type === 'event') {
    config = {
      sourceIntegrationId: String(stored.sourceIntegrationId),
      connectionId: String(stored.connectionId),
      eventType: String(stored.eventType),
      eventFilter: stored.filter ?? null,
      hasEndpointSecret: trigger.endpointSecretSealed !== null,
    };
  }
  return {
    id: trigger.id,
    type: trigger.type,
    domainId: trigger.domainId,
    name: trigger.name,
    active: trigger.active,
    subscribers: [...subscribers],
    config,
    ...(trigger.type === 'event' ? { deliveryUrl: `${extras.baseUrl ?? ''}${eventDeliveryPath(trigger.id)}` } : {}),
    createdBy: trigger.createdBy,
    createdAt: toIso(trigger.createdAt),
  };
}
