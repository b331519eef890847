// Adds and removes a person in a domain's approval policy (`{ approvers: [userId…] }`, as the manifest writes it).
import type { PortRepositories } from '../../storage/port/storage.js';

function policyOf(policy: Readonly<Record<string, unknown>>): Record<string, unknown> & { approvers: string[] } {
  const approvers = Array.isArray(policy.approvers) ? policy.approvers.filter((a): a is string => typeof a === 'string') : [];
  return { ...policy, approvers };
}

/** Inside a unit of work; other policy fields are kept as they are. */
export async function setApprover(tenancy: PortRepositories['tenancy'], domainId: string, userId: string, approver: boolean): Promise<void> {
  const domain = await tenancy.domain(domainId);
  if (domain === undefined) return;
  const policy = policyOf(domain.approvalPolicy);
  const has = policy.approvers.includes(userId);
  if (has === approver) return;
  policy.approvers = approver ? [...policy.approvers, userId] : policy.approvers.filter((id) => id !== userId);
  await tenancy.updateDomain(domainId, domain.name, policy);
}
