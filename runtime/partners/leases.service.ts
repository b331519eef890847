// Minting one-hour `svt_` leases: app leases for { orgId, appId }, worker leases that act as one vouched person.
import type { Storage } from '../../storage/port/storage.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { hashSecret, mintSecret } from '../auth/secrets.js';
import { HOUR, toIso, type Clock } from '../clock.js';
import { notFound } from '../errors.js';
import { newId, isUuid } from '../ids.js';
import { activeCustomerOf } from './customer-of.js';

/** SPEC Limits: partner leases last one hour. */
export const LEASE_TTL_MS = HOUR;

export interface MintedLease {
  token: string;
  expiresAt: string;
  kind: 'app' | 'worker';
  orgId: string;
  appId: string;
  partnerSubject?: string;
  mappingId?: string;
  userId?: string;
}

export interface LeasesService {
  mintAppLease(principal: PartnerPrincipal, input: { orgId: string; appId: string }): Promise<MintedLease>;
  mintWorkerLease(principal: PartnerPrincipal, input: { orgId: string; appId: string; partnerSubject: string }): Promise<MintedLease>;
}

export function createLeasesService(deps: { store: Pick<Storage, 'repos' | 'writer'>; clock: Clock }): LeasesService {
  const { store, clock } = deps;
  const { repos } = store;

  /** The app must be this partner's; an unknown or foreign app is the same neutral 404 as a foreign organization. */
  async function ownApp(partnerId: string, appId: string): Promise<void> {
    const app = isUuid(appId) ? await repos.partners.partnerApp(appId) : undefined;
    if (app === undefined || app.partnerId !== partnerId) throw notFound();
  }

  async function mint(principal: PartnerPrincipal, fields: { orgId: string; appId: string; kind: 'app' | 'worker'; partnerSubject: string | null; mappingId: string | null }) {
    const token = mintSecret('svt_');
    const now = clock.now();
    const expiresAt = now + LEASE_TTL_MS;
    await store.writer.submit(async (tx) => {
      // Expired leases authenticate nothing: each mint clears them (index leases_expiry), so the table stays bounded.
      await tx.repos.leases.sweep(now);
      await tx.repos.leases.insert({
        id: newId(),
        partnerId: principal.partnerId,
        orgId: fields.orgId,
        appId: fields.appId,
        kind: fields.kind,
        partnerSubject: fields.partnerSubject,
        mappingId: fields.mappingId,
        tokenHash: hashSecret(token),
        createdAt: now,
        expiresAt: expiresAt,
      });
    });
    return { token, expiresAt: toIso(expiresAt) };
  }

  return {
    async mintAppLease(principal, { orgId, appId }) {
      await activeCustomerOf(repos, principal.partnerId, orgId);
      await ownApp(principal.partnerId, appId);
      const minted = await mint(principal, { orgId, appId, kind: 'app', partnerSubject: null, mappingId: null });
      return { ...minted, kind: 'app', orgId, appId };
    },
    async mintWorkerLease(principal, { orgId, appId, partnerSubject }) {
      await activeCustomerOf(repos, principal.partnerId, orgId);
      await ownApp(principal.partnerId, appId);
      // Only a vouched worker gets a lease; an unknown subject is the same 404 as an unknown organization.
      const mapping = await repos.workers.activeBySubject(orgId, partnerSubject);
      if (mapping === undefined || mapping.partnerId !== principal.partnerId) throw notFound();
      const minted = await mint(principal, { orgId, appId, kind: 'worker', partnerSubject, mappingId: mapping.id });
      return { ...minted, kind: 'worker', orgId, appId, partnerSubject, mappingId: mapping.id, userId: mapping.userId };
    },
  };
}
