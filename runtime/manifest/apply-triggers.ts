// Owns applying an organization's triggers: config per type, sealed endpoint secret, subscribers in order.
import type { TriggerUpdate } from '../../storage/records/triggers.js';
import { newId } from '../ids.js';
import { sealSecret, sealedSecretAad } from '../vault/sealed-secret.js';
import type { ApplyContext, OrganizationIds } from './apply-context.js';
import { sealIfChanged } from './apply-integrations.js';
import { canonicalJson, canonicalValue } from './canonical-json.js';
import { formatPath } from './manifest-error.js';
import type { OrganizationManifest } from './organization.schema.js';
import type { TriggerManifest } from './trigger.schema.js';

/** Kept for importers of this module; the AADs live in runtime/vault/sealed-secret.ts. */
export const endpointSecretAad = sealedSecretAad.triggerEndpoint;

/** The stored config (triggers.config) of each type; secrets are never part of it. */
function configOf(trigger: TriggerManifest, ids: OrganizationIds): Record<string, unknown> {
  switch (trigger.type) {
    case 'api':
      return {};
    case 'schedule':
      return { cron: trigger.cron, timezone: trigger.timezone ?? null, input: trigger.input ?? {} };
    case 'event':
      return {
        sourceIntegrationId: trigger.sourceIntegrationId,
        connectionId: ids.connections.get(trigger.connection)!,
        eventType: trigger.eventType,
        filter: trigger.eventFilter ?? null,
      };
  }
}

export async function applyTriggers(ctx: ApplyContext, ids: OrganizationIds, org: OrganizationManifest, o: number): Promise<void> {
  const repo = ctx.repos.triggers;
  for (const [k, trigger] of org.triggers.entries()) {
    const path = formatPath(['organizations', o, 'triggers', k]);
    const fields = {
      domainId: ids.domains.get(trigger.domain)!,
      type: trigger.type,
      name: trigger.name,
      active: trigger.active,
      config: canonicalValue(configOf(trigger, ids)),
    } satisfies Partial<TriggerUpdate>;
    const secret = trigger.type === 'event' ? trigger.endpointSecret : undefined;
    let id = await ctx.book.lookup(ids.scope, trigger.ref, 'trigger', path, async (found) => (await repo.trigger(found))?.orgId === ids.orgId);
    if (id === undefined) {
      id = newId();
      const sealed = secret === undefined ? null : sealSecret(ctx.keyRing, secret, sealedSecretAad.triggerEndpoint(ids.orgId, id));
      await repo.insertTrigger({ id, orgId: ids.orgId, ...fields, endpointSecretSealed: sealed, createdBy: null, createdAt: ctx.now });
    } else {
      const row = (await repo.trigger(id))!;
      // Only event triggers hold a secret; an absent endpointSecret keeps the stored one.
      const sealed =
        trigger.type !== 'event'
          ? null
          : secret === undefined
            ? row.endpointSecretSealed
            : sealIfChanged(ctx, row.endpointSecretSealed, secret, sealedSecretAad.triggerEndpoint(ids.orgId, id));
      const changed =
        row.domainId !== fields.domainId || row.type !== fields.type || row.name !== fields.name || row.active !== fields.active ||
        canonicalJson(row.config) !== canonicalJson(fields.config);
      if (changed || sealed !== row.endpointSecretSealed) await repo.updateTrigger({ id, ...fields, endpointSecretSealed: sealed });
    }
    await ctx.book.remember(ids.scope, trigger.ref, 'trigger', id);
    ctx.refs[trigger.ref] = id;

    // The subscriber list is the trigger's definition: it becomes exactly the manifest's, in its order.
    const wanted = trigger.subscribers.map((ref) => ids.automations.get(ref)!);
    const current = (await repo.subscribers(id)).map((s) => s.automationId);
    if (canonicalJson(current) !== canonicalJson(wanted)) await repo.replaceSubscriptions(id, wanted);
  }
}
