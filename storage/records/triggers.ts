// Domain records for triggers and their subscriptions (storage/repos/triggers.repo.ts maps them).
import type { CreatedCursor } from './paging.js';

export type TriggerType = 'schedule' | 'api' | 'event';

/** The filters of an organization's trigger list page (each null: any). */
export interface TriggerPageFilter {
  domainId: string | null;
  type: TriggerType | null;
}

/** One page of an organization's triggers as `userId` may see them (the repositories' argument list, both engines). */
export type TriggerPageArgs = [orgId: string, userId: string, filter: TriggerPageFilter, after: CreatedCursor | null, limit: number];

export interface Trigger {
  id: string;
  orgId: string;
  domainId: string;
  type: TriggerType;
  name: string;
  active: boolean;
  /**
   * `{}` (api), `{ cron, timezone, input }` (schedule), `{ sourceIntegrationId, connectionId, eventType, filter }`
   * (event), parsed in stored key order; never holds a secret.
   */
  config: Record<string, unknown>;
  /** runtime/vault/sealed-secret.ts output for an event trigger's endpointSecret. */
  endpointSecretSealed: Buffer | null;
  createdBy: string | null;
  createdAt: number;
}

/** What an edit may change (the owner, creator and creation time stay). */
export type TriggerUpdate = Pick<Trigger, 'id' | 'domainId' | 'type' | 'name' | 'active' | 'config' | 'endpointSecretSealed'>;

export interface Subscription {
  triggerId: string;
  automationId: string;
  /** Firing order among the trigger's subscribers. */
  position: number;
}
