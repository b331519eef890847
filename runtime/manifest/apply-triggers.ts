// Owns applying an organization's triggers: config per type, sealed endpoint secret, subscribers in order.
import type { TriggerRow } from '../../storage/repos/triggers.repo.js';
import { newId } from '../ids.js';
import { sealSecret, sealedSecretAad } from '../vault/sealed-secret.js';
import type { ApplyContext, OrganizationIds } from './apply-context.js';
import { sealIfChanged } from './apply-integrations.js';
import { canonicalJson } from './canonical-json.js';
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

export function applyTriggers(ctx: ApplyContext, ids: OrganizationIds, org: OrganizationManifest, o: number): void {
  const repo = ctx.repos.triggers;
  org.triggers.forEach((trigger, k) => {
    const path = formatPath(['organizations', o, 'triggers', k]);
    const fields = {
      domain_id: ids.domains.get(trigger.domain)!,
      type: trigger.type,
      name: trigger.name,
      active: trigger.active ? 1 : 0,
      config: canonicalJson(configOf(trigger, ids)),
    } satisfies Partial<TriggerRow>;
    const secret = trigger.type === 'event' ? trigger.endpointSecret : undefined;
    let id = ctx.book.lookup(ids.scope, trigger.ref, 'trigger', path, (found) => repo.trigger(found)?.org_id === ids.orgId);
    if (id === undefined) {
      id = newId();
      const sealed = secret === undefined ? null : sealSecret(ctx.keyRing, secret, sealedSecretAad.triggerEndpoint(ids.orgId, id));
      repo.insertTrigger({ id, org_id: ids.orgId, ...fields, endpoint_secret_sealed: sealed, created_by: null, created_at: ctx.now });
    } else {
      const row = repo.trigger(id)!;
      // Only event triggers hold a secret; an absent endpointSecret keeps the stored one.
      const sealed =
        trigger.type !== 'event'
          ? null
          : secret === undefined
            ? row.endpoint_secret_sealed
            : sealIfChanged(ctx, row.endpoint_secret_sealed, secret, sealedSecretAad.triggerEndpoint(ids.orgId, id));
      const changed = (Object.keys(fields) as Array<keyof typeof fields>).some((key) => row[key] !== fields[key]);
      if (changed || sealed !== row.endpoint_secret_sealed) repo.updateTrigger({ id, ...fields, endpoint_secret_sealed: sealed });
    }
    ctx.book.remember(ids.scope, trigger.ref, 'trigger', id);
    ctx.refs[trigger.ref] = id;

    // The subscriber list is the trigger's definition: it becomes exactly the manifest's, in its order.
    const wanted = trigger.subscribers.map((ref) => ids.automations.get(ref)!);
    const current = repo.subscribers(id).map((s) => s.automation_id);
    if (canonicalJson(current) !== canonicalJson(wanted)) repo.replaceSubscriptions(id, wanted);
  });
}
