// Adds and removes a person in a domain's approval policy (`{ approvers: [userId…] }`, as the manifest writes it).
import type { TenancyRepo } from '../../storage/repos/tenancy.repo.js';

function policyOf(policy: Readonly<Record<string, unknown>>): Record<string, unknown> & { approvers: string[] } {
  const approvers = Array.isArray(policy.approvers) ? policy.approvers.filter((a): a is string => typeof a === 'string') : [];
  return { ...policy, approvers };
}

/** Inside a unit of work; other policy fields are kept as they are. */
export function setApprover(tenancy: TenancyRepo, domainId: string, userId: string, approver: boolean): void {
  const domain = tenancy.domain(domainId);
  if (domain === undefined) return;
  const policy = policyOf(domain.approvalPolicy);
  const has = policy.approvers.includes(userId);
  if (has === approver) return;
  policy.approvers = approver ? [...policy.approvers, userId] : policy.approvers.filter((id) => id !== userId);
  tenancy.updateDomain(domainId, domain.name, policy);
}
