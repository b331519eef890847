// Triggers and their ordered subscriptions on PostgreSQL (storage/repos/triggers.repo.ts's functions, async).
import { postgresCodec } from '../../row-codec.js';
import type { Subscription, TriggerPageArgs, TriggerType, TriggerUpdate, Trigger } from '../../records/triggers.js';
import { subscriptionFromRow, triggerRows } from '../../rows/triggers.js';
import { replaceMembers } from './replace-members.js';
import { CREATION_ORDER, insert, keysetClause, keysetValues, many, one, run, write, type Queryable } from './sql.js';

const { fromRow, toRow, updateToRow } = triggerRows(postgresCodec);

const SUBSCRIBERS = {
  parent: 'triggers', table: 'subscriptions', parentColumn: 'trigger_id', memberColumn: 'automation_id',
  extra: { column: 'position', type: 'integer' }, constraint: 'subscriptions_pkey',
};

export function createPostgresTriggersRepo(q: Queryable) {
  return {
    insertTrigger: (trigger: Trigger): Promise<void> => insert(q, 'triggers', toRow(trigger)),
    updateTrigger: (t: TriggerUpdate): Promise<void> => {
      const r = updateToRow(t);
      return write(q, 'UPDATE triggers SET domain_id = $1, type = $2, name = $3, active = $4, config = $5, endpoint_secret_sealed = $6 WHERE id = $7', [
        r.domain_id, r.type, r.name, r.active, r.config, r.endpoint_secret_sealed, r.id,
      ]);
    },
    /** One page of the triggers of an organization's domains `userId` is a member of, oldest first, after `after`. */
    triggersOfOrganizationPage: (...[orgId, userId, filter, after, limit]: TriggerPageArgs) =>
      many(
        q,
        `SELECT * FROM triggers WHERE org_id = $1 AND domain_id IN (SELECT domain_id FROM domain_memberships WHERE user_id = $2)
           AND ($3::text IS NULL OR domain_id = $3) AND ($4::text IS NULL OR type = $4)
           AND ${keysetClause(5)}`,
        [orgId, userId, filter.domainId, filter.type, ...keysetValues(after, limit)],
        fromRow,
      ),
    /** Deletes the trigger; its subscriptions, runs and event deliveries cascade. */
    deleteTrigger: async (id: string): Promise<boolean> => (await run(q, 'DELETE FROM triggers WHERE id = $1', [id])) > 0,
    /** The triggers an automation is subscribed to. */
    subscriptionsOfAutomation: (automationId: string): Promise<Subscription[]> =>
      many(q, 'SELECT * FROM subscriptions WHERE automation_id = $1 ORDER BY trigger_id COLLATE "C"', [automationId], subscriptionFromRow),
    trigger: (id: string) => one(q, 'SELECT * FROM triggers WHERE id = $1', [id], fromRow),
    triggersOfOrganization: (orgId: string) => many(q, `SELECT * FROM triggers WHERE org_id = $1 ${CREATION_ORDER}`, [orgId], fromRow),
    /** Every trigger of one type across organizations (boot arms schedule triggers). */
    triggersOfType: (type: TriggerType) => many(q, `SELECT * FROM triggers WHERE type = $1 ${CREATION_ORDER}`, [type], fromRow),
    /** Makes the subscribers exactly `automationIds`, fired in that order (inside a unit of work: see replaceMembers). */
    replaceSubscriptions: (triggerId: string, automationIds: readonly string[]): Promise<void> =>
      replaceMembers(q, SUBSCRIBERS, triggerId, automationIds, automationIds.map((_, position) => position)),
    /** Subscribers in firing (position) order. */
    subscribers: (triggerId: string): Promise<Subscription[]> =>
      many(q, 'SELECT * FROM subscriptions WHERE trigger_id = $1 ORDER BY position, automation_id COLLATE "C"', [triggerId], subscriptionFromRow),
  };
}
