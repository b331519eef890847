// One row mapping for triggers and subscriptions, both drivers (storage/repos/ and storage/postgres/repos/ triggers.repo.ts).
import type { RowCodec } from '../row-codec.js';
import type { Subscription, Trigger, TriggerType, TriggerUpdate } from '../records/triggers.js';

export interface TriggerRow {
  id: string;
  org_id: string;
  domain_id: string;
  type: TriggerType;
  name: string;
  /** 0/1 on SQLite, boolean on PostgreSQL. */
  active: number | boolean;
  /** JSON object: text on SQLite, parsed `json` (key order kept) on PostgreSQL. */
  config: unknown;
  endpoint_secret_sealed: Buffer | null;
  created_by: string | null;
  created_at: number;
}

export interface SubscriptionRow {
  trigger_id: string;
  automation_id: string;
  position: number;
}

export const subscriptionFromRow = (r: SubscriptionRow): Subscription => ({ triggerId: r.trigger_id, automationId: r.automation_id, position: r.position });

export function triggerRows(codec: RowCodec) {
  const fromRow = (r: TriggerRow): Trigger => ({
    id: r.id,
    orgId: r.org_id,
    domainId: r.domain_id,
    type: r.type,
    name: r.name,
    active: codec.bool(r.active),
    config: codec.jsonObject(r.config),
    endpointSecretSealed: r.endpoint_secret_sealed,
    createdBy: r.created_by,
    createdAt: r.created_at,
  });

  /** The columns an edit writes (owner, creator and creation time stay). */
  const updateToRow = (t: TriggerUpdate) => ({
    id: t.id,
    domain_id: t.domainId,
    type: t.type,
    name: t.name,
    active: codec.toBool(t.active),
    config: codec.toJson(t.config),
    endpoint_secret_sealed: t.endpointSecretSealed,
  });

  /** Every column: an edit's, plus what an edit never changes. */
  const toRow = (t: Trigger) => ({ ...updateToRow(t), org_id: t.orgId, created_by: t.createdBy, created_at: t.createdAt });

  return { fromRow, toRow, updateToRow };
}
