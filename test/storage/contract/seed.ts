// Records and rows the storage contract tests start from, written the same way on both drivers.
import type { Automation } from '../../../storage/records/automations.js';
import type { NewSession } from '../../../storage/records/sessions.js';
import type { Domain, Organization, User } from '../../../storage/records/tenancy.js';
import type { Trigger } from '../../../storage/records/triggers.js';
import type { Partner } from '../../../storage/records/partners.js';
import type { DriverUnderTest } from '../../helpers/storage-drivers.js';

/** The latest time a JavaScript Date can hold (ms): far past 2^32 and 2^31 seconds, still an exact double. */
export const FAR_FUTURE = 8_640_000_000_000_000;

export const organization = (id: string, over: Partial<Organization> = {}): Organization => ({
  id,
  name: `Org ${id}`,
  partnerId: null,
  clientSegment: null,
  directLoginDisabled: false,
  rolloutFlags: {},
  createdAt: 1_000,
  suspendedAt: null,
  ...over,
});

export const user = (id: string, over: Partial<User> = {}): User => ({
  id,
  email: `${id}@example.com`,
  name: `User ${id}`,
  passwordHash: null,
  disabled: false,
  createdAt: 1_000,
  ...over,
});

export const partner = (id: string, over: Partial<Partner> = {}): Partner => ({
  id,
  name: `Partner ${id}`,
  suspended: false,
  provisioningEnabled: true,
  quotaTotal: 2,
  quotaUsed: 0,
  templateId: null,
  createdAt: 1_000,
  ...over,
});

/** A domain without an approval policy. */
export const domain = (id: string, orgId: string, over: Partial<Domain> = {}): Domain => ({ id, orgId, name: id, approvalPolicy: {}, createdAt: 1_000, ...over });

/** An agent of org-1 / dom-1. */
export const automation = (id: string, over: Partial<Automation> = {}): Automation => ({
  id, orgId: 'org-1', domainId: 'dom-1', kind: 'agent', name: `Agent ${id}`, description: null, publishedRevision: null,
  entitledByDefault: true, createdBy: null, createdAt: 1_000, updatedAt: 1_000, archivedAt: null, archivedRevision: null, ...over,
});

/** An active API trigger of org-1 / dom-1. */
export const trigger = (id: string, over: Partial<Trigger> = {}): Trigger => ({
  id, orgId: 'org-1', domainId: 'dom-1', type: 'api', name: `Trigger ${id}`, active: true, config: {}, endpointSecretSealed: null,
  createdBy: null, createdAt: 1_000, ...over,
});

/** A domain session of agent auto-1 in org-1 / dom-1, opened by u-1. */
export const newSession = (id: string, over: Partial<NewSession> = {}): NewSession => ({
  id,
  orgId: 'org-1',
  domainId: 'dom-1',
  automationId: 'auto-1',
  revision: null,
  visibility: 'domain',
  createdBy: 'u-1',
  origin: 'api',
  triggerRunId: null,
  status: 'active',
  title: null,
  createdAt: 1_000,
  updatedAt: 1_000,
  ...over,
});

/** org-1 with domains dom-1, dom-2 (u-1 an editor of dom-1 only) and org-2 (dom-9), through the repos. */
export async function seedOrganizations({ repos }: DriverUnderTest): Promise<void> {
  await repos.tenancy.insertOrganization(organization('org-1'));
  await repos.tenancy.insertOrganization(organization('org-2'));
  for (const [id, orgId] of [['dom-1', 'org-1'], ['dom-2', 'org-1'], ['dom-9', 'org-2']] as const) await repos.tenancy.insertDomain(domain(id, orgId));
  await repos.tenancy.insertUser(user('u-1'));
  await repos.tenancy.setDomainRole('dom-1', 'u-1', 'editor', 1_000);
}

/**
 * org-1 with domain dom-1, user u-1, agent auto-1, session ses-1 (no creator) and API trigger trg-1, all in org-1,
 * through the repos. `partner`: partner p-1 (app app-1) owns org-1. `otherOrganization`: org-2 too (no domain).
 */
export async function seedWorkspace({ repos }: DriverUnderTest, options: { partner?: boolean; otherOrganization?: boolean } = {}): Promise<void> {
  if (options.partner) {
    await repos.partners.insertPartner(partner('p-1'));
    await repos.partners.insertPartnerApp({ id: 'app-1', partnerId: 'p-1', name: 'App', createdAt: 1_000 });
  }
  await repos.tenancy.insertOrganization(organization('org-1', { partnerId: options.partner ? 'p-1' : null }));
  await repos.tenancy.insertDomain(domain('dom-1', 'org-1', { name: 'Support' }));
  await repos.tenancy.insertUser(user('u-1'));
  await repos.automations.insertAutomation(automation('auto-1', { name: 'Agent', createdAt: 1, updatedAt: 1 }));
  await repos.sessions.insertSession(newSession('ses-1', { createdBy: null, createdAt: 1, updatedAt: 1 }));
  await repos.triggers.insertTrigger(trigger('trg-1', { name: 'Fire', createdAt: 1 }));
  if (options.otherOrganization) await repos.tenancy.insertOrganization(organization('org-2'));
}

/** Collects every page of a keyset-paged list, `size` rows at a time, as the HTTP layer walks a cursor. */
export async function allPages<T extends { createdAt: number }>(
  page: (after: { createdAt: number; id: string } | null, limit: number) => Promise<T[]>,
  key: (row: T) => string,
  size: number,
): Promise<T[][]> {
  const pages: T[][] = [];
  let after: { createdAt: number; id: string } | null = null;
  for (;;) {
    const rows = await page(after, size);
    if (rows.length === 0) return pages;
    pages.push(rows);
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: key(last) };
  }
}
