// Who may manage an organization (issue 13 item 6): its Owners and Admins; ids of other organizations are the uniform 404.
import type { PortRepositories } from '../../storage/port/storage.js';
import type { Domain, OrgRole } from '../../storage/records/tenancy.js';
import { forbidden, notFound } from '../errors.js';
import { isUuid } from '../ids.js';

/** The person a console cookie, `sv_` key, `svu_` token or partner subject acts as (membership re-read per request). */
export interface Manager {
  readonly userId: string;
  readonly orgId: string;
}

type Repos = Pick<PortRepositories, 'tenancy'>;

/** The caller's role when it is Owner or Admin; 403 otherwise (the caller is inside the organization already). */
export async function requireOrgAdmin(repos: Repos, manager: Manager): Promise<OrgRole> {
  const role = await repos.tenancy.orgRole(manager.orgId, manager.userId);
  if (role !== 'owner' && role !== 'admin') throw forbidden('Only an organization Owner or Admin can manage the organization.');
  return role;
}

export async function domainOfOrg(repos: Repos, orgId: string, domainId: string): Promise<Domain> {
  const domain = isUuid(domainId) ? await repos.tenancy.domain(domainId) : undefined;
  if (domain === undefined || domain.orgId !== orgId) throw notFound();
  return domain;
}
