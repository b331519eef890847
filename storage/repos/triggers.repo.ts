// Triggers (api, schedule, event) and their ordered subscriptions.
import type { SqliteDatabase } from '../database.js';

export type TriggerType = 'schedule' | 'api' | 'event';

export interface TriggerRow {
  id: string;
  org_id: string;
  domain_id: string;
  type: TriggerType;
  name: string;
  active: number;
  /** JSON: `{}` (api), `{ cron, timezone, input }` (schedule), `{ sourceIntegrationId, connectionId, eventType, filter }` (event). */
  config: string;
  /** runtime/vault/sealed-secret.ts output for an event trigger's endpointSecret. */
  endpoint_secret_sealed: Buffer | null;
  created_by: string | null;
  created_at: number;
}

export interface SubscriptionRow {
  trigger_id: string;
  automation_id: string;
  position: number;
}

export function createTriggersRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO triggers (id, org_id, domain_id, type, name, active, config, endpoint_secret_sealed, created_by, created_at)
       VALUES (@id, @org_id, @domain_id, @type, @name, @active, @config, @endpoint_secret_sealed, @created_by, @created_at)`,
    ),
    update: db.prepare(
      `UPDATE triggers SET domain_id = @domain_id, type = @type, name = @name, active = @active, config = @config,
         endpoint_secret_sealed = @endpoint_secret_sealed WHERE id = @id`,
    ),
    byId: db.prepare('SELECT * FROM triggers WHERE id = ?'),
    ofOrg: db.prepare('SELECT * FROM triggers WHERE org_id = ? ORDER BY created_at, id'),
    ofType: db.prepare('SELECT * FROM triggers WHERE type = ? ORDER BY created_at, id'),
    deleteSubs: db.prepare('DELETE FROM subscriptions WHERE trigger_id = ?'),
    insertSub: db.prepare('INSERT INTO subscriptions (trigger_id, automation_id, position) VALUES (?, ?, ?)'),
    subscribers: db.prepare('SELECT * FROM subscriptions WHERE trigger_id = ? ORDER BY position, automation_id'),
  };

  const replaceSubscriptions = db.transaction((triggerId: string, automationIds: readonly string[]) => {
    s.deleteSubs.run(triggerId);
    automationIds.forEach((automationId, position) => s.insertSub.run(triggerId, automationId, position));
  });

  return {
    insertTrigger: (row: TriggerRow): void => void s.insert.run(row),
    updateTrigger: (row: Pick<TriggerRow, 'id' | 'domain_id' | 'type' | 'name' | 'active' | 'config' | 'endpoint_secret_sealed'>): void =>
      void s.update.run(row),
    trigger: (id: string) => s.byId.get(id) as TriggerRow | undefined,
    triggersOfOrganization: (orgId: string) => s.ofOrg.all(orgId) as TriggerRow[],
    /** Every trigger of one type across organizations (boot arms schedule triggers). */
    triggersOfType: (type: TriggerType) => s.ofType.all(type) as TriggerRow[],
    /** Makes the subscribers exactly `automationIds`, fired in that order. */
    replaceSubscriptions: (triggerId: string, automationIds: readonly string[]): void => replaceSubscriptions(triggerId, automationIds),
    /** Subscribers in firing (position) order. */
    subscribers: (triggerId: string) => s.subscribers.all(triggerId) as SubscriptionRow[],
  };
}

export type TriggersRepo = ReturnType<typeof createTriggersRepo>;
