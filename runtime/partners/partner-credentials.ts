// Resolves `svp_` partner keys and `svt_` leases to principals; every check rereads current state.
import type { Store } from '../../storage/store.js';
import type { LeasePrincipal, PartnerPrincipal } from '../auth/principal.js';
import { hashSecret, isWellFormed, sameHash } from '../auth/secrets.js';
import type { Clock } from '../clock.js';

export interface PartnerAuthenticator {
  /** An unrevoked `svp_` key of an existing partner. A suspended partner still authenticates: suspension is a provisioning refusal. */
  partnerKey(secret: string): PartnerPrincipal | null;
  /**
   * An unexpired `svt_` lease whose organization still belongs to its partner; a worker lease also needs its
   * mapping unrevoked and the mapped person enabled and still a member (a revoked worker stops at once).
   */
  lease(secret: string): LeasePrincipal | null;
}

export function createPartnerAuthenticator(store: Pick<Store, 'repos'>, clock: Clock): PartnerAuthenticator {
  const { partners, leases, tenancy, workers } = store.repos;
  return {
    partnerKey(secret) {
      if (!isWellFormed(secret, 'svp_')) return null;
      const hash = hashSecret(secret);
      const row = partners.partnerKeyByHash(hash);
      if (!row || !sameHash(row.keyHash, hash) || row.revokedAt !== null) return null;
      if (partners.partner(row.partnerId) === undefined) return null;
      return { kind: 'partner', partnerId: row.partnerId, partnerKeyId: row.id };
    },
    lease(secret) {
      if (!isWellFormed(secret, 'svt_')) return null;
      const hash = hashSecret(secret);
      const row = leases.byHash(hash);
      if (!row || !sameHash(row.token_hash, hash) || row.expires_at <= clock.now()) return null;
      const org = tenancy.organization(row.org_id);
      // A suspended customer's leases stop at once (docs/decisions.md "Suspending a customer").
      if (org?.partnerId !== row.partner_id || (org.suspendedAt ?? null) !== null) return null;
      let userId: string | null = null;
      if (row.kind === 'worker') {
        const mapping = row.mapping_id === null ? undefined : workers.mapping(row.mapping_id);
        if (!mapping || mapping.revoked_at !== null || mapping.org_id !== row.org_id) return null;
        const user = tenancy.user(mapping.user_id);
        if (!user || user.disabled || tenancy.orgRole(row.org_id, user.id) === null) return null;
        userId = user.id;
      }
      return {
        kind: 'lease',
        leaseId: row.id,
        leaseKind: row.kind,
        partnerId: row.partner_id,
        orgId: row.org_id,
        appId: row.app_id,
        userId,
        partnerSubject: row.partner_subject,
      };
    },
  };
}
