// Resolves `svp_` partner keys and `svt_` leases to principals; every check rereads current state.
import type { Storage } from '../../storage/port/storage.js';
import type { LeasePrincipal, PartnerPrincipal } from '../auth/principal.js';
import { hashSecret, isWellFormed, sameHash } from '../auth/secrets.js';
import type { Clock } from '../clock.js';

export interface PartnerAuthenticator {
  /** An unrevoked `svp_` key of an existing partner. A suspended partner still authenticates: suspension is a provisioning refusal. */
  partnerKey(secret: string): Promise<PartnerPrincipal | null>;
  /**
   * An unexpired `svt_` lease whose organization still belongs to its partner; a worker lease also needs its
   * mapping unrevoked and the mapped person enabled and still a member (a revoked worker stops at once).
   */
  lease(secret: string): Promise<LeasePrincipal | null>;
}

export function createPartnerAuthenticator(store: Pick<Storage, 'repos'>, clock: Clock): PartnerAuthenticator {
  const { partners, leases, tenancy, workers } = store.repos;
  return {
    async partnerKey(secret) {
      if (!isWellFormed(secret, 'svp_')) return null;
      const hash = hashSecret(secret);
      const row = await partners.partnerKeyByHash(hash);
      if (!row || !sameHash(row.keyHash, hash) || row.revokedAt !== null) return null;
      if ((await partners.partner(row.partnerId)) === undefined) return null;
      return { kind: 'partner', partnerId: row.partnerId, partnerKeyId: row.id };
    },
    async lease(secret) {
      if (!isWellFormed(secret, 'svt_')) return null;
      const hash = hashSecret(secret);
      const row = await leases.byHash(hash);
      if (!row || !sameHash(row.tokenHash, hash) || row.expiresAt <= clock.now()) return null;
      const org = await tenancy.organization(row.orgId);
      // A suspended customer's leases stop at once (docs/decisions.md "Suspending a customer").
      if (org?.partnerId !== row.partnerId || (org.suspendedAt ?? null) !== null) return null;
      let userId: string | null = null;
      if (row.kind === 'worker') {
        const mapping = row.mappingId === null ? undefined : await workers.mapping(row.mappingId);
        if (!mapping || mapping.revokedAt !== null || mapping.orgId !== row.orgId) return null;
        const user = await tenancy.user(mapping.userId);
        if (!user || user.disabled || (await tenancy.orgRole(row.orgId, user.id)) === null) return null;
        userId = user.id;
      }
      return {
        kind: 'lease',
        leaseId: row.id,
        leaseKind: row.kind,
        partnerId: row.partnerId,
        orgId: row.orgId,
        appId: row.appId,
        userId,
        partnerSubject: row.partnerSubject,
      };
    },
  };
}
