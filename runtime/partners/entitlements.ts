// Entitlements: the platform default of each agent and flow, a partner's per-customer override, and the resolved standing.
/*
 * `isEntitled` is the one check every entry point that runs an automation makes (open session, message, fire
 * subscribers, MCP tools/list and tools/call, partner tenant calls): resolved = override ?? default, where the
 * default is the automation's `entitled` flag (manifest; true unless a template or organization says false).
 */
import * as z from 'zod';
import type { Automation } from '../../storage/records/automations.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { customerOf } from './customer-of.js';

type Repos = Pick<PortRepositories, 'automations' | 'entitlements'>;

/** True when the automation may run in the organization now; false for an unknown or foreign automation too. */
export async function isEntitled(repos: Repos, orgId: string, automationId: string): Promise<boolean> {
  const automation = await repos.automations.automation(automationId);
  return automation !== undefined && (await isAutomationEntitled(repos, orgId, automation));
}

/** The same check for an automation row the caller has already read (one read less on the fire path). */
export async function isAutomationEntitled(repos: Pick<Repos, 'entitlements'>, orgId: string, automation: Automation): Promise<boolean> {
  if (automation.orgId !== orgId) return false;
  const found = await repos.entitlements.override(orgId, automation.id);
  return found === undefined ? automation.entitledByDefault : found.enabled;
}

export const entitlementBodySchema = z.strictObject({ enabled: z.boolean({ error: 'enabled must be a boolean' }) });

export interface EntitlementView {
  automationId: string;
  kind: Automation['kind'];
  name: string;
  domainId: string;
  /** The platform default (the template's or manifest's `entitled`). */
  default: { enabled: boolean };
  /** This customer's override, or null when none is set. */
  override: { enabled: boolean } | null;
  /** What applies now: the override when set, else the default. */
  resolved: { enabled: boolean; source: 'override' | 'default' };
}

export interface EntitlementsService {
  isEntitled(orgId: string, automationId: string): Promise<boolean>;
  list(principal: PartnerPrincipal, orgId: string): Promise<EntitlementView[]>;
  setOverride(principal: PartnerPrincipal, orgId: string, automationId: string, enabled: boolean): Promise<EntitlementView>;
  clearOverride(principal: PartnerPrincipal, orgId: string, automationId: string): Promise<EntitlementView>;
}

export function createEntitlementsService(deps: { store: Pick<Storage, 'repos' | 'writer'>; clock: Clock }): EntitlementsService {
  const { store, clock } = deps;

  function view(automation: Automation, overrideEnabled: boolean | undefined): EntitlementView {
    const fallback = automation.entitledByDefault;
    const override = overrideEnabled === undefined ? null : { enabled: overrideEnabled };
    return {
      automationId: automation.id,
      kind: automation.kind,
      name: automation.name,
      domainId: automation.domainId,
      default: { enabled: fallback },
      override,
      resolved: override === null ? { enabled: fallback, source: 'default' } : { enabled: override.enabled, source: 'override' },
    };
  }

  /** An automation of that customer, or the neutral 404. */
  async function automationOf(principal: PartnerPrincipal, orgId: string, automationId: string): Promise<Automation> {
    await customerOf(store.repos, principal.partnerId, orgId);
    const automation = isUuid(automationId) ? await store.repos.automations.automation(automationId) : undefined;
    if (automation === undefined || automation.orgId !== orgId) throw notFound();
    return automation;
  }

  return {
    isEntitled: (orgId, automationId) => isEntitled(store.repos, orgId, automationId),
    async list(principal, orgId) {
      await customerOf(store.repos, principal.partnerId, orgId);
      const [overrideRows, automations] = await Promise.all([
        store.repos.entitlements.overridesOfOrganization(orgId),
        store.repos.automations.automationsOfOrganization(orgId),
      ]);
      const overrides = new Map(overrideRows.map((row) => [row.automationId, row.enabled]));
      return automations.map((automation) => view(automation, overrides.get(automation.id)));
    },
    async setOverride(principal, orgId, automationId, enabled) {
      const automation = await automationOf(principal, orgId, automationId);
      await store.writer.submit(async (tx) => {
        await tx.repos.entitlements.set({ orgId, automationId: automation.id, enabled, updatedAt: clock.now() });
      });
      return view(automation, enabled);
    },
    async clearOverride(principal, orgId, automationId) {
      const automation = await automationOf(principal, orgId, automationId);
      await store.writer.submit(async (tx) => {
        await tx.repos.entitlements.clear(orgId, automation.id);
      });
      return view(automation, undefined);
    },
  };
}
