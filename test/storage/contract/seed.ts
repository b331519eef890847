// Records and rows the storage contract tests start from, written the same way on both drivers.
import type { Organization, User } from '../../../storage/records/tenancy.js';
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

/**
 * org-1 with domain dom-1 and user u-1 (through the ported repos), and through SQL, for the repositories not ported
 * yet: agent auto-1, session ses-1 and API trigger trg-1, all in org-1. With `withPartner`, partner p-1 (app app-1)
 * owns org-1.
 */
export async function seedWorkspace(db: DriverUnderTest, withPartner = false): Promise<void> {
  if (withPartner) {
    await db.repos.partners.insertPartner(partner('p-1'));
    await db.repos.partners.insertPartnerApp({ id: 'app-1', partnerId: 'p-1', name: 'App', createdAt: 1_000 });
  }
  await db.repos.tenancy.insertOrganization(organization('org-1', { partnerId: withPartner ? 'p-1' : null }));
  await db.repos.tenancy.insertDomain({ id: 'dom-1', orgId: 'org-1', name: 'Support', approvalPolicy: {}, createdAt: 1_000 });
  await db.repos.tenancy.insertUser(user('u-1'));
  await db.exec(`
    INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES ('auto-1', 'org-1', 'dom-1', 'agent', 'Agent', 1, 1);
    INSERT INTO sessions (id, org_id, domain_id, automation_id, visibility, created_at, updated_at) VALUES ('ses-1', 'org-1', 'dom-1', 'auto-1', 'domain', 1, 1);
    INSERT INTO triggers (id, org_id, domain_id, type, name, created_at) VALUES ('trg-1', 'org-1', 'dom-1', 'api', 'Fire', 1);`);
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
