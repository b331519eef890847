// A partner's view of its customers (issue 13 item 6): paged list, suspend/resume, the support grants they gave.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import { customerOf } from '../partners/customer-of.js';
import { customerStatus, customerSummaryOf, type CustomerStatus, type CustomerSummary } from '../partners/customer-status.js';
import { supportGrantView, type SupportGrantView } from '../partners/support-grants.service.js';
import { byCreation, viewPage, type Page, type PageQuery } from '../paging/keyset-page.js';

export type { CustomerSummary } from '../partners/customer-status.js';

export interface CustomersService {
  list(partnerId: string, query: PageQuery): Promise<Page<CustomerSummary>>;
  /** Suspends (or resumes) at once; repeating it changes nothing (idempotent) and answers the current status. */
  setSuspended(partnerId: string, orgId: string, suspended: boolean): Promise<CustomerStatus>;
  supportGrants(partnerId: string, orgId: string, query: PageQuery): Promise<Page<SupportGrantView>>;
}

export function createCustomersService(deps: { store: Storage; clock: Clock }): CustomersService {
  const { repos, writer } = deps.store;
  return {
    list: (partnerId, query) =>
      viewPage(query, (after, limit) => repos.management.customers(partnerId, after, limit), byCreation, customerSummaryOf),

    async setSuspended(partnerId, orgId, suspended) {
      await writer.submit(async (tx) => {
        const org = await customerOf(tx.repos, partnerId, orgId);
        const current = org.suspendedAt;
        if (suspended && current === null) await tx.repos.management.setSuspended(org.id, deps.clock.now());
        if (!suspended && current !== null) await tx.repos.management.setSuspended(org.id, null);
      });
      return await customerStatus(repos, partnerId, orgId);
    },

    async supportGrants(partnerId, orgId, query) {
      const org = await customerOf(repos, partnerId, orgId);
      return viewPage(query, (after, limit) => repos.management.supportGrantsOf(org.id, partnerId, after, limit), byCreation, supportGrantView);
    },
  };
}
