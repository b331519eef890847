// A partner's own customer organization, or the neutral 404 (SPEC Authentication: outside ids and unknown ids look alike).
import type { PortRepositories } from '../../storage/port/storage.js';
import type { Organization } from '../../storage/records/tenancy.js';
import { AppError, notFound } from '../errors.js';
import { isUuid } from '../ids.js';

export async function customerOf(repos: Pick<PortRepositories, 'tenancy'>, partnerId: string, orgId: string): Promise<Organization> {
  const org = isUuid(orgId) ? await repos.tenancy.organization(orgId) : undefined;
  if (org === undefined || org.partnerId !== partnerId) throw notFound();
  return org;
}

/** The customer, unless its partner suspended it: then a CONFLICT the partner can act on (it knows the customer). */
export async function activeCustomerOf(repos: Pick<PortRepositories, 'tenancy'>, partnerId: string, orgId: string): Promise<Organization> {
  const org = await customerOf(repos, partnerId, orgId);
  if (org.suspendedAt !== null) throw new AppError('CONFLICT', 'This customer organization is suspended; resume it first.', { suspended: true });
  return org;
}
