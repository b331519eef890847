// Customer-tenant calls: the provisioned person named by X-Service-Subject, as the principal the /api/v1 services take.
/*
 * SPEC "Partner API": routes under /organizations/{orgId}/… act as the provisioned person the header names. The
 * subject is a partnerSubject vouched into that organization (an active worker mapping of the calling partner).
 * The resulting principal is an ordinary user principal of that person in that organization: the same
 * visibility, execute, drive and approval rules apply as on /api/v1, rereading current memberships.
 */
import type { Storage } from '../../storage/port/storage.js';
import type { UserPrincipal } from '../auth/principal.js';
import { notFound } from '../errors.js';
import { activeCustomerOf } from './customer-of.js';

export interface TenantCaller {
  /** The partner (from an `svp_` key or an app lease of that organization). */
  readonly partnerId: string;
  /** The credential row behind the call (rate limits and audit). */
  readonly credentialId: string;
}

/**
 * The person `subject` names in `orgId`, or the neutral 404 for anything amiss: an organization outside the
 * platform, an unknown or revoked subject, a disabled person. A missing or repeated header is the same 404.
 */
export async function resolveTenantSubject(store: Pick<Storage, 'repos'>, caller: TenantCaller, orgId: string, subject: string | undefined): Promise<UserPrincipal> {
  const { repos } = store;
  // A suspended customer: a CONFLICT saying so to its partner (which knows the customer), not the neutral 404.
  await activeCustomerOf(repos, caller.partnerId, orgId);
  if (subject === undefined || subject.length === 0) throw notFound();
  const mapping = await repos.workers.activeBySubject(orgId, subject);
  if (mapping === undefined || mapping.partnerId !== caller.partnerId) throw notFound();
  const user = await repos.tenancy.user(mapping.userId);
  if (user === undefined || user.disabled || (await repos.tenancy.orgRole(orgId, user.id)) === null) throw notFound();
  return { kind: 'user', via: 'partner_subject', userId: user.id, orgId, credentialId: caller.credentialId };
}
