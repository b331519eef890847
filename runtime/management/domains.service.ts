// Domains of an organization (issue 13 item 6): list, create (the creator owns it), rename.
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { Domain } from '../../storage/records/tenancy.js';
import { toIso, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { domainOfOrg, requireOrgAdmin, type Manager } from './org-access.js';

export interface DomainView {
  domainId: string;
  name: string;
  createdAt: string;
}

export interface DomainsService {
  list(manager: Manager): Promise<DomainView[]>;
  create(manager: Manager, input: { name: string }): Promise<DomainView>;
  rename(manager: Manager, domainId: string, input: { name: string }): Promise<DomainView>;
}

const view = (row: Domain): DomainView => ({ domainId: row.id, name: row.name, createdAt: toIso(row.createdAt) });

export function createDomainsService(deps: { store: Storage; clock: Clock }): DomainsService {
  const { repos, writer } = deps.store;
  const { tenancy } = repos;

  /** Names are unique per organization (case-insensitive): two "Sales" domains would be told apart by id only (`from`: the unit's). */
  const assertFreeName = async (from: Pick<PortRepositories, 'management'>, orgId: string, name: string, except: string | null): Promise<void> => {
    const holder = await from.management.domainNamed(orgId, name);
    if (holder !== undefined && holder !== except) throw new AppError('CONFLICT', 'Another domain of this organization has that name.', { field: 'name' });
  };

  return {
    async list(manager) {
      await requireOrgAdmin(repos, manager);
      return (await tenancy.domainsOfOrganization(manager.orgId)).map(view);
    },

    async create(manager, { name }) {
      await requireOrgAdmin(repos, manager);
      return writer.submit(async (tx) => {
        // Domain names are unique by this check alone: a concurrent create or rename in the organization waits here.
        await tx.repos.tenancy.lockOrganization(manager.orgId);
        await assertFreeName(tx.repos, manager.orgId, name, null);
        const now = deps.clock.now();
        const row: Domain = { id: newId(), orgId: manager.orgId, name, approvalPolicy: {}, createdAt: now };
        await tx.repos.tenancy.insertDomain(row);
        // Somebody must be able to author in a new domain: its creator owns it (docs/decisions.md).
        await tx.repos.tenancy.setDomainRole(row.id, manager.userId, 'owner', now);
        return view(row);
      });
    },

    async rename(manager, domainId, { name }) {
      await requireOrgAdmin(repos, manager);
      return writer.submit(async (tx) => {
        await tx.repos.tenancy.lockOrganization(manager.orgId);
        const domain = await domainOfOrg(tx.repos, manager.orgId, domainId);
        await assertFreeName(tx.repos, manager.orgId, name, domain.id);
        await tx.repos.management.renameDomain(domain.id, name);
        return view({ ...domain, name });
      });
    },
  };
}
