// Triggers (api, schedule, event) and their ordered subscriptions.
import type { SqliteDatabase } from '../database.js';
import { mapOptional } from '../row-mapping.js';
import { sqliteCodec } from '../row-codec.js';
import type { Subscription, Trigger, TriggerPageArgs, TriggerType, TriggerUpdate } from '../records/triggers.js';
import { keysetAfter, keysetAfterParams } from './keyset.js';
import { subscriptionFromRow, triggerRows, type SubscriptionRow, type TriggerRow } from '../rows/triggers.js';

export type { TriggerType } from '../records/triggers.js';

const { fromRow: triggerFromRow, toRow: triggerToRow, updateToRow } = triggerRows(sqliteCodec);

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
    ofOrgPage: db.prepare(
      `SELECT * FROM triggers WHERE org_id = @org AND domain_id IN (SELECT domain_id FROM domain_memberships WHERE user_id = @user)
         AND (@domain IS NULL OR domain_id = @domain) AND (@type IS NULL OR type = @type)
         AND ${keysetAfter()}`,
    ),
    deleteTrigger: db.prepare('DELETE FROM triggers WHERE id = ?'),
    subscribedTo: db.prepare('SELECT * FROM subscriptions WHERE automation_id = ? ORDER BY trigger_id'),
    deleteSubs: db.prepare('DELETE FROM subscriptions WHERE trigger_id = ?'),
    insertSub: db.prepare('INSERT INTO subscriptions (trigger_id, automation_id, position) VALUES (?, ?, ?)'),
    subscribers: db.prepare('SELECT * FROM subscriptions WHERE trigger_id = ? ORDER BY position, automation_id'),
  };

  const replaceSubscriptions = db.transaction((triggerId: string, automationIds: readonly string[]) => {
    s.deleteSubs.run(triggerId);
    automationIds.forEach((automationId, position) => s.insertSub.run(triggerId, automationId, position));
  });

  return {
    insertTrigger: (trigger: Trigger): void => void s.insert.run(triggerToRow(trigger)),
    updateTrigger: (t: TriggerUpdate): void => void s.update.run(updateToRow(t)),
    /** One page of the triggers of an organization's domains `userId` is a member of, oldest first, after `after`. */
    triggersOfOrganizationPage: (...[orgId, userId, filter, after, limit]: TriggerPageArgs): Trigger[] =>
      (s.ofOrgPage.all({ org: orgId, user: userId, domain: filter.domainId, type: filter.type, ...keysetAfterParams(after, limit) }) as TriggerRow[]).map(triggerFromRow),
    /** Deletes the trigger; its subscriptions, runs and event deliveries cascade. */
    deleteTrigger: (id: string): boolean => s.deleteTrigger.run(id).changes > 0,
    /** The triggers an automation is subscribed to. */
    subscriptionsOfAutomation: (automationId: string): Subscription[] => (s.subscribedTo.all(automationId) as SubscriptionRow[]).map(subscriptionFromRow),
    trigger: (id: string): Trigger | undefined => mapOptional(s.byId.get(id), triggerFromRow),
    triggersOfOrganization: (orgId: string): Trigger[] => (s.ofOrg.all(orgId) as TriggerRow[]).map(triggerFromRow),
    /** Every trigger of one type across organizations (boot arms schedule triggers). */
    triggersOfType: (type: TriggerType): Trigger[] => (s.ofType.all(type) as TriggerRow[]).map(triggerFromRow),
    /** Makes the subscribers exactly `automationIds`, fired in that order. */
    replaceSubscriptions: (triggerId: string, automationIds: readonly string[]): void => replaceSubscriptions(triggerId, automationIds),
    /** Subscribers in firing (position) order. */
    subscribers: (triggerId: string): Subscription[] => (s.subscribers.all(triggerId) as SubscriptionRow[]).map(subscriptionFromRow),
  };
}

export type TriggersRepo = ReturnType<typeof createTriggersRepo>;
