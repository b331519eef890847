// A provisioned customer as its partner sees it: the organization and the progress of its latest onboarding run.
import type { Organization } from '../../storage/records/tenancy.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import type { OnboardingStatus } from '../../storage/records/provisioning.js';
import { toIso } from '../clock.js';
import { customerOf } from './customer-of.js';
import type { OnboardingStep } from './customer-record.js';

export interface CustomerSummary {
  id: string;
  name: string;
  clientSegment: string | null;
  directLoginDisabled: boolean;
  suspendedAt: string | null;
  createdAt: string;
}

export interface CustomerStatus {
  organization: CustomerSummary;
  onboardingStatus: OnboardingStatus;
  onboarding: { runId: string; status: OnboardingStatus; steps: OnboardingStep[]; error: string | null; updatedAt: string } | null;
}

/** A customer organization as its partner sees it (status answers and the customer pages). */
export const customerSummaryOf = (org: Organization): CustomerSummary => ({
  id: org.id,
  name: org.name,
  clientSegment: org.clientSegment,
  directLoginDisabled: org.directLoginDisabled,
  suspendedAt: org.suspendedAt === null ? null : toIso(org.suspendedAt),
  createdAt: toIso(org.createdAt),
});

/** Reconciliation after IDENTIFIER_TAKEN (details.existing) or PROVISIONING_FAILED; the neutral 404 for anything else. */
export async function customerStatus(repos: Pick<PortRepositories, 'tenancy' | 'provisioning'>, partnerId: string, orgId: string): Promise<CustomerStatus> {
  const org = await customerOf(repos, partnerId, orgId);
  const run = await repos.provisioning.latestOnboardingRun(org.id);
  return {
    organization: customerSummaryOf(org),
    // A customer without a run (none recorded) has nothing left to converge.
    onboardingStatus: run?.status ?? 'completed',
    onboarding:
      run === undefined
        ? null
        : { runId: run.id, status: run.status, steps: run.steps, error: run.error, updatedAt: toIso(run.updatedAt) },
  };
}
