// Who may decide a turn approval (SPEC conversations rule 5): credential owner, policy approver, or the confirming person.
import type { Approval } from '../../storage/records/approvals.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import { forbidden } from '../errors.js';
import type { Caller } from './session-access.js';

/** The domain's current approval policy: `{ approvers: [userId...] }` (manifest `approvalPolicy`). */
type TenancyRepo = Pick<PortRepositories['tenancy'], 'domain'>;

export async function policyApprovers(tenancy: TenancyRepo, domainId: string): Promise<ReadonlySet<string>> {
  const domain = await tenancy.domain(domainId);
  if (domain === undefined) return new Set();
  const approvers = domain.approvalPolicy.approvers;
  return new Set(Array.isArray(approvers) ? approvers.filter((a): a is string => typeof a === 'string') : []);
}

/**
 * Read at decision time, so a policy change applies to approvals already waiting ("current approval policy").
 * - a confirmation: only its recorded initiating person;
 * - a user-routed call (it runs with the caller's own credential): that credential's owner, or a policy approver;
 * - otherwise: a policy approver.
 * Visibility is checked before this (404); participation alone never qualifies (rule 3).
 */
export async function mayDecide(tenancy: TenancyRepo, caller: Caller, approval: Approval, domainId: string): Promise<boolean> {
  const isInitiator = approval.initiatedBy !== null && approval.initiatedBy === caller.userId;
  if (approval.kind === 'confirmation') return isInitiator;
  if (approval.routing === 'user' && isInitiator) return true;
  return (await policyApprovers(tenancy, domainId)).has(caller.userId);
}

export async function assertMayDecide(tenancy: TenancyRepo, caller: Caller, approval: Approval, domainId: string): Promise<void> {
  if (!(await mayDecide(tenancy, caller, approval, domainId))) throw forbidden('You cannot decide this approval.');
}
