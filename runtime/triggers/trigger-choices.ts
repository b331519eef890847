// Owns what a person may attach a new trigger to: their domains (and whether they may create triggers there) and
// the event sources (catalog events a delivery can be verified for, with connected connections) — the console's form.
import type { PortRepositories } from '../../storage/port/storage.js';
import { hasDomainPermission } from '../authoring/authoring-access.js';
import { eventsOf, eventTriggersEnabled } from './event-trigger-checks.js';
import type { TriggerCaller } from './trigger-access.js';

export interface TriggerChoices {
  domains: Array<{ domainId: string; name: string; canCreate: boolean }>;
  eventTriggersEnabled: boolean;
  eventSources: Array<{
    integrationId: string;
    name: string;
    events: Array<{ type: string; payloadPaths: string[] }>;
    connections: Array<{ connectionId: string; domainId: string | null }>;
  }>;
}

/**
 * Domains are those the caller is a member of (an organization admin without a domain role sees none, as in the
 * lists). An event source is offered only when POST /triggers would accept it (event-trigger-checks.ts): a visible
 * integration, events signed with standard-webhooks, and a connection holding account material in one of the
 * caller's domains or organization-wide. Connection ids are no secret; their material is never read here.
 */
export async function triggerChoices(repos: Pick<PortRepositories, 'tenancy' | 'automations' | 'knowledge' | 'integrations'>, caller: TriggerCaller): Promise<TriggerChoices> {
  const domains: TriggerChoices['domains'] = [];
  for (const { domainId } of await repos.tenancy.domainRolesOfUser(caller.userId, caller.orgId)) {
    const domain = await repos.tenancy.domain(domainId);
    if (domain !== undefined) domains.push({ domainId: domain.id, name: domain.name, canCreate: await hasDomainPermission(repos, caller, domain.id, 'edit_automation') });
  }
  domains.sort((a, b) => a.name.localeCompare(b.name));
  const enabled = eventTriggersEnabled(await repos.tenancy.organization(caller.orgId));
  if (!enabled) return { domains, eventTriggersEnabled: false, eventSources: [] };

  const mine = new Set(domains.map((d) => d.domainId));
  const connections = (await repos.integrations.connectionsOfOrganization(caller.orgId)).filter((c) => c.secretSealed !== null && (c.domainId === null || mine.has(c.domainId)));
  const eventSources = (await repos.integrations.integrationsVisibleTo(caller.orgId))
    .map((integration) => ({
      integrationId: integration.id,
      name: integration.name,
      events: eventsOf(integration)
        .filter((event) => event.signature?.scheme === 'standard-webhooks')
        .map((event) => ({ type: event.type, payloadPaths: event.payloadPaths })),
      connections: connections.filter((c) => c.integrationId === integration.id).map((c) => ({ connectionId: c.id, domainId: c.domainId })),
    }))
    .filter((source) => source.events.length > 0 && source.connections.length > 0);
  return { domains, eventTriggersEnabled: true, eventSources };
}
