// A partner's own customer organization, or the neutral 404 (SPEC Authentication: outside ids and unknown ids look alike).
import type { Repositories } from '../../storage/repos/index.js';
import type { Organization } from '../../storage/records/tenancy.js';
import { AppError, notFound } from '../errors.js';
import { isUuid } from '../ids.js';

export function customerOf(repos: Pick<Repositories, 'tenancy'>, partnerId: string, orgId: string): Organization {
  const org = isUuid(orgId) ? repos.tenancy.organization(orgId) : undefined;
  if (org === undefined || org.partnerId !== partnerId) throw notFound();
  return org;
}

/** The customer, unless its partner suspended it: then a CONFLICT the partner can act on (it knows the customer). */
export function activeCustomerOf(repos: Pick<Repositories, 'tenancy'>, partnerId: string, orgId: string): Organization {
  const org = customerOf(repos, partnerId, orgId);
  if (org.suspendedAt !== null) throw new AppError('CONFLICT', 'This customer organization is suspended; resume it first.', { suspended: true });
  return org;
}
