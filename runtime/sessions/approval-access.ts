// Who may decide a turn approval (SPEC conversations rule 5): credential owner, policy approver, or the confirming person.
import type { Approval } from '../../storage/records/approvals.js';
import type { TenancyRepo } from '../../storage/repos/tenancy.repo.js';
import { forbidden } from '../errors.js';
import type { Caller } from './session-access.js';

/** The domain's current approval policy: `{ approvers: [userId...] }` (manifest `approvalPolicy`). */
export function policyApprovers(tenancy: TenancyRepo, domainId: string): ReadonlySet<string> {
  const domain = tenancy.domain(domainId);
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
export function mayDecide(tenancy: TenancyRepo, caller: Caller, approval: Approval, domainId: string): boolean {
  const isInitiator = approval.initiatedBy !== null && approval.initiatedBy === caller.userId;
  if (approval.kind === 'confirmation') return isInitiator;
  if (approval.routing === 'user' && isInitiator) return true;
  return policyApprovers(tenancy, domainId).has(caller.userId);
}

export function assertMayDecide(tenancy: TenancyRepo, caller: Caller, approval: Approval, domainId: string): void {
  if (!mayDecide(tenancy, caller, approval, domainId)) throw forbidden('You cannot decide this approval.');
}
