// Partner credentials on /api/partner/v1: `svp_` keys and `svt_` leases; a bad credential is one uniform 401.
import type { LeasePrincipal, PartnerPrincipal } from '../runtime/auth/principal.js';
import { AppError, notFound } from '../runtime/errors.js';
import type { TenantCaller } from '../runtime/partners/tenant-subject.js';
import type { Services } from '../runtime/services.js';
import { bearerToken } from './auth.js';
import type { HttpRequest } from './types.js';

/** Missing, malformed, unknown, revoked and expired credentials all answer these bytes (docs/errors.md). */
const unauthorized = (): AppError => new AppError('UNAUTHORIZED', 'A valid partner credential is required.');

export async function requirePartnerKey(request: HttpRequest, services: Services): Promise<PartnerPrincipal> {
  const token = bearerToken(request);
  const principal = token?.startsWith('svp_') ? await services.partners.auth.partnerKey(token) : null;
  if (!principal) throw unauthorized();
  services.keyLimiter.take(`partner:${principal.partnerKeyId}`);
  return principal;
}

/** Any unexpired lease (support sessions read with an app or a worker lease). */
export async function requireLease(request: HttpRequest, services: Services): Promise<LeasePrincipal> {
  const token = bearerToken(request);
  const principal = token?.startsWith('svt_') ? await services.partners.auth.lease(token) : null;
  if (!principal) throw unauthorized();
  services.keyLimiter.take(`lease:${principal.leaseId}`);
  return principal;
}

/** Worker routes: a worker lease; an app lease names no person and is refused like a bad credential. */
export async function requireWorkerLease(request: HttpRequest, services: Services): Promise<LeasePrincipal> {
  const lease = await requireLease(request, services);
  if (lease.leaseKind !== 'worker' || lease.userId === null) throw unauthorized();
  return lease;
}

/**
 * Customer-tenant routes: the partner's `svp_` key, or an app lease minted for that very organization (a lease of
 * another organization is the neutral 404, like any organization outside the platform).
 */
export async function requireTenantCaller(request: HttpRequest, services: Services, orgId: string): Promise<TenantCaller> {
  const token = bearerToken(request);
  if (token?.startsWith('svt_')) {
    const lease = await requireLease(request, services);
    if (lease.leaseKind !== 'app') throw unauthorized();
    if (lease.orgId !== orgId) throw notFound();
    return { partnerId: lease.partnerId, credentialId: lease.leaseId };
  }
  const key = await requirePartnerKey(request, services);
  return { partnerId: key.partnerId, credentialId: key.partnerKeyId };
}
