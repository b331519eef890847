// Owns POST /triggers (console): permission, subscriber and per-type checks, then one atomic commit of the trigger,
// its subscriptions and (schedule) its first tick.
import type { Trigger } from '../../storage/records/triggers.js';
import type { Storage } from '../../storage/port/storage.js';
import { domainOf, requireDomainPermission } from '../authoring/authoring-access.js';
import type { Clock } from '../clock.js';
import { AppError, notFound, validation } from '../errors.js';
import { newId } from '../ids.js';
import { canonicalValue } from '../manifest/canonical-json.js';
import type { KeyRing } from '../vault/index.js';
import { sealSecret, sealedSecretAad } from '../vault/sealed-secret.js';
import { mintSigningSecret } from '../webhooks/standard-webhooks.js';
import { checkEventTrigger } from './event-trigger-checks.js';
import { nextRunAfter } from './schedule-next.js';
import type { ScheduleTicks } from './schedule-ticks.js';
import type { CreateTriggerInput } from './trigger-create.schema.js';
import type { TriggerCaller } from './trigger-access.js';
import { triggerView, type TriggerView } from './trigger-view.js';

export interface CreatedTrigger {
  trigger: TriggerView;
  /** Only when the service minted the event trigger's endpointSecret: shown once, stored sealed. */
  endpointSecret?: string;
}

export interface TriggerAdmin {
  /** `baseUrl` (scheme://host, no trailing slash) prefixes an event trigger's deliveryUrl; null leaves it a path. */
  create(caller: TriggerCaller, body: CreateTriggerInput, baseUrl: string | null): Promise<CreatedTrigger>;
}

export interface TriggerAdminDeps {
  store: Storage;
  clock: Clock;
  keyRing: KeyRing;
  scheduleTicks: ScheduleTicks;
}

export function createTriggerAdmin(deps: TriggerAdminDeps): TriggerAdmin {
  const { store, clock, keyRing, scheduleTicks } = deps;
  const { repos } = store;

  /** Subscribers are agents or flows of the trigger's own domain: a domain editor cannot wire up another domain's work. */
  async function checkSubscribers(caller: TriggerCaller, domainId: string, ids: readonly string[]): Promise<void> {
    for (const [index, id] of ids.entries()) {
      const automation = await repos.automations.automation(id);
      if (automation === undefined || automation.orgId !== caller.orgId) throw notFound();
      if (automation.domainId !== domainId) {
        throw validation('The trigger cannot be created.', { issues: [{ path: `subscribers.${index}`, message: 'must be an agent or flow of the trigger\'s domain' }] });
      }
      // docs/decisions.md "Archived automations": as on PUT /triggers/:triggerId/subscribers/:automationId.
      if (automation.archivedAt != null) {
        throw new AppError('CONFLICT', 'An archived automation cannot subscribe to triggers.', { reason: 'automation_archived', path: `subscribers.${index}` });
      }
    }
  }

  return {
    async create(caller, body, baseUrl) {
      await domainOf(repos, caller, body.domainId);
      await requireDomainPermission(repos, caller, body.domainId, 'edit_automation');
      const subscribers = body.subscribers ?? [];
      await checkSubscribers(caller, body.domainId, subscribers);

      const id = newId();
      const now = clock.now();
      let config: Record<string, unknown> = {};
      let sealed: Buffer | null = null;
      let minted: string | undefined;
      if (body.type === 'schedule') {
        config = { cron: body.cron, timezone: body.timezone ?? null, input: body.input ?? {} };
        if (nextRunAfter({ cron: body.cron, timezone: body.timezone ?? null }, now) === null) {
          throw validation('The trigger cannot be created.', { issues: [{ path: 'cron', message: 'never matches a future time' }] });
        }
      } else if (body.type === 'event') {
        await checkEventTrigger(repos, caller.orgId, body);
        config = { sourceIntegrationId: body.sourceIntegrationId, connectionId: body.connectionId, eventType: body.eventType, filter: body.eventFilter ?? null };
        if (body.endpointSecret === undefined) minted = mintSigningSecret();
        sealed = sealSecret(keyRing, body.endpointSecret ?? minted, sealedSecretAad.triggerEndpoint(caller.orgId, id));
      }

      const trigger: Trigger = {
        id,
        orgId: caller.orgId,
        domainId: body.domainId,
        type: body.type,
        name: body.name,
        active: body.active !== false,
        // The same stored shape the manifest writes (runtime/manifest/apply-triggers.ts), so both arm and fire alike.
        config: canonicalValue(config),
        endpointSecretSealed: sealed,
        createdBy: caller.userId,
        createdAt: now,
      };
      // One unit: a failing subscription (or tick) insert rolls the trigger back with it.
      const nextRunAt = await store.writer.submit(async (tx) => {
        await tx.repos.triggers.insertTrigger(trigger);
        await tx.repos.triggers.replaceSubscriptions(id, subscribers);
        if (body.type === 'schedule' && trigger.active) return scheduleTicks.arm(tx.repos, id, { cron: body.cron, timezone: body.timezone ?? null }, now);
        return null;
      });
      const view = triggerView(trigger, subscribers, { nextRunAt, baseUrl });
      return minted === undefined ? { trigger: view } : { trigger: view, endpointSecret: minted };
    },
  };
}
