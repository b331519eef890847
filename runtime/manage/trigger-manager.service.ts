// Owns trigger management after creation: list, read with subscribers, update, pause/resume, delete, subscribers.
/*
 * Every write is one unit of work that rereads the trigger inside it, writes through the triggers repo and, for a
 * schedule trigger, re-arms or disarms its tick in the same commit (runtime/triggers/schedule-ticks.ts), so a
 * paused or deleted schedule never fires again and an edited cron fires on its new slots only.
 * Reading needs any role in the trigger's domain; changing it needs edit_automation there (as creating it did).
 */
import type { Automation } from '../../storage/records/automations.js';
import type { Trigger } from '../../storage/records/triggers.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import { requireDomainPermission } from '../authoring/authoring-access.js';
import type { Clock } from '../clock.js';
import { AppError, forbidden, notFound, validation } from '../errors.js';
import { isUuid } from '../ids.js';
import { canonicalValue } from '../manifest/canonical-json.js';
import { TRIGGER_LIMITS } from '../manifest/trigger.schema.js';
import { filterIssues } from '../triggers/event-filter.js';
import { eventsOf, visibleIntegration } from '../triggers/event-trigger-checks.js';
import { nextRunAfter, scheduleConfigOf } from '../triggers/schedule-next.js';
import type { ScheduleTicks } from '../triggers/schedule-ticks.js';
import { triggerOfCaller, type TriggerCaller } from '../triggers/trigger-access.js';
import { triggerView, type TriggerView } from '../triggers/trigger-view.js';
import { byCreation, keysetPage } from '../paging/keyset-page.js';
import { FIELD_TYPES, type UpdateTriggerInput } from './trigger-update.schema.js';

export interface SubscriberSummary {
  automationId: string;
  kind: 'agent' | 'flow';
  name: string;
  /** False for a draft-only or archived automation: firings record it as skipped NOT_PUBLISHED. */
  published: boolean;
  archived: boolean;
}

export interface TriggerDetail {
  trigger: TriggerView;
  subscribers: SubscriberSummary[];
}

export interface TriggerListQuery {
  domainId?: string;
  type?: Trigger['type'];
  limit: number;
  cursor?: string;
}

export interface TriggerManager {
  list(caller: TriggerCaller, query: TriggerListQuery, baseUrl: string | null): Promise<{ triggers: TriggerView[]; nextCursor: string | null }>;
  read(caller: TriggerCaller, triggerId: string, baseUrl: string | null): Promise<TriggerDetail>;
  update(caller: TriggerCaller, triggerId: string, patch: UpdateTriggerInput, baseUrl: string | null): Promise<TriggerDetail>;
  setActive(caller: TriggerCaller, triggerId: string, active: boolean, baseUrl: string | null): Promise<TriggerDetail>;
  remove(caller: TriggerCaller, triggerId: string): Promise<void>;
  addSubscriber(caller: TriggerCaller, triggerId: string, automationId: string, baseUrl: string | null): Promise<TriggerDetail>;
  removeSubscriber(caller: TriggerCaller, triggerId: string, automationId: string, baseUrl: string | null): Promise<TriggerDetail>;
}

export interface TriggerManagerDeps {
  store: Storage;
  clock: Clock;
  scheduleTicks: ScheduleTicks;
}

const refuse = (path: string, message: string) => validation('The trigger cannot be changed.', { issues: [{ path, message }] });

export function createTriggerManager(deps: TriggerManagerDeps): TriggerManager {
  const { store, clock, scheduleTicks } = deps;
  const { repos } = store;

  const summary = (automation: Automation): SubscriberSummary => ({
    automationId: automation.id,
    kind: automation.kind,
    name: automation.name,
    published: automation.publishedRevision !== null,
    archived: automation.archivedAt != null,
  });

  const viewOf = async (trigger: Trigger, ids: readonly string[], baseUrl: string | null): Promise<TriggerView> =>
    triggerView(trigger, ids, { nextRunAt: await scheduleTicks.nextRunAt(trigger.id), baseUrl });

  /**
   * Read after the unit that wrote `trigger` committed, not inside it: the next run time comes from the schedule
   * ticks' own reads, which on PostgreSQL run outside a unit's transaction and would miss the tick it just armed.
   */
  const detail = async (trigger: Trigger, baseUrl: string | null): Promise<TriggerDetail> => {
    const ids = (await repos.triggers.subscribers(trigger.id)).map((s) => s.automationId);
    const view = await viewOf(trigger, ids, baseUrl);
    const subscribers: SubscriberSummary[] = [];
    for (const id of ids) {
      const automation = await repos.automations.automation(id);
      if (automation !== undefined) subscribers.push(summary(automation));
    }
    return { trigger: view, subscribers };
  };

  const readable = async (caller: TriggerCaller, triggerId: string): Promise<Trigger> => {
    const trigger = isUuid(triggerId) ? await triggerOfCaller(repos, caller, triggerId) : undefined;
    if (trigger === undefined) throw notFound();
    if ((await repos.tenancy.domainRole(trigger.domainId, caller.userId)) === null) throw forbidden('You are not a member of this trigger\'s domain.');
    return trigger;
  };

  /** `from`: the unit's repositories. */
  const editable = async (from: PortRepositories, caller: TriggerCaller, triggerId: string): Promise<Trigger> => {
    const trigger = isUuid(triggerId) ? await triggerOfCaller(from, caller, triggerId) : undefined;
    if (trigger === undefined) throw notFound();
    await requireDomainPermission(from, caller, trigger.domainId, 'edit_automation');
    return trigger;
  };

  /** Keeps the schedule tick in step with the row just written: armed while an active schedule, else none. */
  const syncTick = async (repos: PortRepositories, trigger: Trigger): Promise<void> => {
    if (trigger.type === 'schedule' && trigger.active) {
      const config = scheduleConfigOf(trigger.config);
      await scheduleTicks.arm(repos, trigger.id, config, clock.now());
    } else {
      await scheduleTicks.disarm(repos, trigger.id);
    }
  };

  /**
   * Re-arms only when the schedule or the active flag changed: re-arming computes the next slot from now, so an
   * overdue tick not yet delivered would otherwise be skipped by a rename.
   */
  const write = async (from: PortRepositories, trigger: Trigger, scheduleChanged: boolean): Promise<void> => {
    await from.triggers.updateTrigger(trigger);
    if (scheduleChanged) await syncTick(from, trigger);
  };

  async function patched(from: PortRepositories, trigger: Trigger, patch: UpdateTriggerInput): Promise<Trigger> {
    for (const [field, type] of Object.entries(FIELD_TYPES)) {
      if (field in patch && trigger.type !== type) throw refuse(field, `applies to ${type} triggers only; this is an ${trigger.type} trigger`);
    }
    const config = { ...trigger.config };
    if (trigger.type === 'schedule') {
      const current = scheduleConfigOf(trigger.config);
      const next = {
        cron: patch.cron ?? current.cron,
        timezone: patch.timezone === undefined ? current.timezone : patch.timezone,
        input: patch.input ?? current.input,
      };
      if (nextRunAfter(next, clock.now()) === null) throw refuse('cron', 'never matches a future time');
      Object.assign(config, next);
    } else if (trigger.type === 'event' && patch.eventFilter !== undefined) {
      if (patch.eventFilter !== null) {
        const integration = await visibleIntegration(from, trigger.orgId, String(config.sourceIntegrationId));
        const event = integration === undefined ? undefined : eventsOf(integration).find((e) => e.type === config.eventType);
        if (event === undefined) throw refuse('eventFilter', 'the trigger\'s event type is no longer in its integration\'s catalog');
        const issues = filterIssues(patch.eventFilter, event);
        if (issues.length > 0) throw validation('The trigger cannot be changed.', { issues });
      }
      config.filter = patch.eventFilter;
    }
    // The same stored shape POST /triggers and the manifest write.
    return { ...trigger, name: patch.name ?? trigger.name, config: canonicalValue(config) };
  }

  /** A subscriber is an agent or flow of the trigger's own domain that is not archived. */
  async function subscribable(from: PortRepositories, caller: TriggerCaller, trigger: Trigger, automationId: string): Promise<Automation> {
    const automation = isUuid(automationId) ? await from.automations.automation(automationId) : undefined;
    if (automation === undefined || automation.orgId !== caller.orgId) throw notFound();
    if (automation.domainId !== trigger.domainId) throw refuse('automationId', 'must be an agent or flow of the trigger\'s domain');
    if (automation.archivedAt != null) throw new AppError('CONFLICT', 'An archived automation cannot subscribe to triggers.', { reason: 'automation_archived' });
    return automation;
  }

  return {
    async list(caller, query, baseUrl) {
      const page = await keysetPage(
        query.cursor,
        query.limit,
        (after, n) => repos.triggers.triggersOfOrganizationPage(caller.orgId, caller.userId, { domainId: query.domainId ?? null, type: query.type ?? null }, after, n),
        byCreation,
      );
      const triggers: TriggerView[] = [];
      for (const row of page.rows) triggers.push(await viewOf(row, (await repos.triggers.subscribers(row.id)).map((s) => s.automationId), baseUrl));
      return { triggers, nextCursor: page.nextCursor };
    },

    read: async (caller, triggerId, baseUrl) => detail(await readable(caller, triggerId), baseUrl),

    async update(caller, triggerId, patch, baseUrl) {
      const next = await store.writer.submit(async (tx) => {
        const updated = await patched(tx.repos, await editable(tx.repos, caller, triggerId), patch);
        await write(tx.repos, updated, patch.cron !== undefined || patch.timezone !== undefined);
        return updated;
      });
      return detail(next, baseUrl);
    },

    async setActive(caller, triggerId, active, baseUrl) {
      const next = await store.writer.submit(async (tx) => {
        const trigger = await editable(tx.repos, caller, triggerId);
        // Idempotent: pausing a paused trigger changes nothing (and keeps no tick).
        const updated = { ...trigger, active };
        await write(tx.repos, updated, updated.active !== trigger.active);
        return updated;
      });
      return detail(next, baseUrl);
    },

    async remove(caller, triggerId) {
      await store.writer.submit(async (tx) => {
        const trigger = await editable(tx.repos, caller, triggerId);
        await scheduleTicks.disarm(tx.repos, trigger.id);
        await tx.repos.triggers.deleteTrigger(trigger.id);
      });
    },

    async addSubscriber(caller, triggerId, automationId, baseUrl) {
      const trigger = await store.writer.submit(async (tx) => {
        const trigger = await editable(tx.repos, caller, triggerId);
        const automation = await subscribable(tx.repos, caller, trigger, automationId);
        const ids = (await tx.repos.triggers.subscribers(trigger.id)).map((s) => s.automationId);
        if (!ids.includes(automation.id)) {
          if (ids.length >= TRIGGER_LIMITS.subscribersMaxEntries) throw refuse('automationId', `a trigger has at most ${TRIGGER_LIMITS.subscribersMaxEntries} subscribers`);
          // Appended: it fires after the existing subscribers.
          await tx.repos.triggers.replaceSubscriptions(trigger.id, [...ids, automation.id]);
        }
        return trigger;
      });
      return detail(trigger, baseUrl);
    },

    async removeSubscriber(caller, triggerId, automationId, baseUrl) {
      const trigger = await store.writer.submit(async (tx) => {
        const trigger = await editable(tx.repos, caller, triggerId);
        const automation = isUuid(automationId) ? await tx.repos.automations.automation(automationId) : undefined;
        const ids = (await tx.repos.triggers.subscribers(trigger.id)).map((s) => s.automationId);
        // An automation that is gone but still listed can be removed; an id never seen here is the uniform 404.
        if (!ids.includes(automationId.toLowerCase()) && (automation === undefined || automation.orgId !== caller.orgId)) throw notFound();
        await tx.repos.triggers.replaceSubscriptions(trigger.id, ids.filter((id) => id !== automationId.toLowerCase()));
        return trigger;
      });
      return detail(trigger, baseUrl);
    },
  };
}
