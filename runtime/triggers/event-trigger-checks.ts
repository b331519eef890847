// Owns what creating an event trigger must validate (SPEC POST /triggers): adapter, catalog event, rollout flag,
// provider-app prerequisites, connection ownership and the filter; refusals never quote submitted values.
/*
 * Order and answers (docs/decisions.md "Event trigger creation"):
 *   rollout flag off for the organization                 -> 403 FORBIDDEN (organizations' rollout flags.eventTriggers === false)
 *   source integration unknown, unavailable or another organization's -> 404 NOT_FOUND (uniform)
 *   the integration declares no events                    -> 400 VALIDATION sourceIntegrationId
 *   eventType not in its catalog                          -> 400 VALIDATION eventType
 *   provider-app prerequisite: the catalog event is signed with a scheme this endpoint verifies (standard-webhooks)
 *                                                         -> 400 VALIDATION eventType
 *   connection unknown or another organization's          -> 404 NOT_FOUND (uniform)
 *   connection for another integration / another domain   -> 400 VALIDATION connectionId
 *   provider-app prerequisite: the connection is connected (holds account material) -> 400 VALIDATION connectionId
 *   eventFilter field / operator / value                  -> 400 VALIDATION eventFilter.*
 */
import type { PortRepositories } from '../../storage/port/storage.js';
import type { Integration } from '../../storage/records/integrations.js';
import type { Organization } from '../../storage/records/tenancy.js';
import { forbidden, notFound, validation } from '../errors.js';
import type { EventDefinition } from '../manifest/integration.schema.js';
import { filterIssues } from './event-filter.js';
import type { EventTriggerInput } from './trigger-create.schema.js';

/** The rollout flag's key in organizations' rollout flags. Absent means on: a self-hosted service ships the feature. */
export const EVENT_TRIGGERS_FLAG = 'eventTriggers';

export function eventTriggersEnabled(org: Pick<Organization, 'rolloutFlags'> | undefined): boolean {
  // An unreadable flags column reads as `{}` (storage/row-mapping.ts): the default rather than failing every creation.
  return org !== undefined && org.rolloutFlags[EVENT_TRIGGERS_FLAG] !== false;
}

/** The integration's catalog events (the stored definition was validated when it was applied). */
export function eventsOf(integration: Integration): EventDefinition[] {
  const definition = integration.definition as { events?: EventDefinition[] } | undefined;
  return definition?.events ?? [];
}

/** An integration this organization may use: global or its own, and available. */
export async function visibleIntegration(repos: Pick<PortRepositories, 'integrations'>, orgId: string, integrationId: string): Promise<Integration | undefined> {
  const integration = await repos.integrations.integration(integrationId);
  if (integration === undefined || !integration.available) return undefined;
  return integration.orgId === null || integration.orgId === orgId ? integration : undefined;
}

const refuse = (path: string, message: string) => validation('The event trigger cannot be created.', { issues: [{ path, message }] });

/** Runs every check in order; returns the catalog event the trigger listens to. */
export async function checkEventTrigger(
  repos: Pick<PortRepositories, 'integrations' | 'tenancy'>,
  orgId: string,
  body: EventTriggerInput,
): Promise<EventDefinition> {
  if (!eventTriggersEnabled(await repos.tenancy.organization(orgId))) {
    throw forbidden('Event triggers are not enabled for this organization.');
  }
  const integration = await visibleIntegration(repos, orgId, body.sourceIntegrationId);
  if (integration === undefined) throw notFound();
  const events = eventsOf(integration);
  if (events.length === 0) throw refuse('sourceIntegrationId', 'the integration declares no events');
  const event = events.find((e) => e.type === body.eventType);
  if (event === undefined) throw refuse('eventType', 'is not an event type of the integration\'s catalog');
  if (event.signature?.scheme !== 'standard-webhooks') {
    throw refuse('eventType', 'the provider does not sign this event\'s deliveries (standard-webhooks), so they cannot be verified');
  }

  const connection = await repos.integrations.connection(body.connectionId);
  if (connection === undefined || connection.orgId !== orgId) throw notFound();
  if (connection.integrationId !== integration.id) throw refuse('connectionId', 'is a connection of another integration');
  if (connection.domainId !== null && connection.domainId !== body.domainId) throw refuse('connectionId', 'belongs to another domain');
  if (connection.secretSealed === null) throw refuse('connectionId', 'is not connected to an account yet');

  if (body.eventFilter !== undefined) {
    const issues = filterIssues(body.eventFilter, event);
    if (issues.length > 0) throw validation('The event trigger cannot be created.', { issues });
  }
  return event;
}
