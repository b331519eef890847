// Support grants: a customer admin shares one session with the organization's partner; a lease of that partner reads it.
/*
 * Creation is a console action (POST /api/v1/support-grants) by an organization Owner or Admin who can see the
 * session themselves (sharing never widens what the grantor could read), for the partner that provisioned the
 * organization. The grant id is what the admin hands to the partner's support desk; the partner reads the session
 * with any unexpired `svt_` lease (app or worker) minted for that organization, until the grant expires or is revoked.
 * There is no collection route: a partner cannot enumerate what was shared.
 */
import * as z from 'zod';
import type { Storage } from '../../storage/port/storage.js';
import type { SupportGrant } from '../../storage/records/support-grants.js';
import type { LeasePrincipal, UserPrincipal } from '../auth/principal.js';
import { HOUR, toIso, type Clock } from '../clock.js';
import { AppError, forbidden, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { visibleSession } from '../sessions/session-access.js';

export const SUPPORT_GRANT_LIMITS = Object.freeze({ defaultHours: 24, maxHours: 7 * 24 });

export const supportGrantBodySchema = z.strictObject({
  sessionId: z.uuid({ error: 'sessionId must be a UUID' }),
  expiresInHours: z.int().min(1).max(SUPPORT_GRANT_LIMITS.maxHours).default(SUPPORT_GRANT_LIMITS.defaultHours),
});

export type SupportGrantBody = z.output<typeof supportGrantBodySchema>;

export interface SupportGrantView {
  grantId: string;
  sessionId: string;
  partnerId: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

export interface SupportSessionView {
  grantId: string;
  expiresAt: string;
  session: {
    sessionId: string;
    automationId: string;
    domainId: string;
    status: string;
    createdAt: string;
    updatedAt: string;
    messages: Array<{ role: 'user' | 'assistant'; text: string; createdAt: string; author?: { userId: string; name: string | null } }>;
    pendingApproval: { approvalId: string; toolName: string; requestedAt: string } | null;
  };
}

export interface SupportGrantsService {
  create(principal: UserPrincipal, body: SupportGrantBody): Promise<SupportGrantView>;
  revoke(principal: UserPrincipal, grantId: string): Promise<SupportGrantView>;
  read(lease: LeasePrincipal, grantId: string): SupportSessionView;
}

/** The grant as both sides see it (the console that made it, the partner listing its customer's grants). */
export const supportGrantView = (row: SupportGrant): SupportGrantView => ({
  grantId: row.id,
  sessionId: row.sessionId,
  partnerId: row.partnerId,
  createdAt: toIso(row.createdAt),
  expiresAt: toIso(row.expiresAt),
  revokedAt: row.revokedAt === null ? null : toIso(row.revokedAt),
});

export function createSupportGrantsService(deps: { store: Pick<Storage, 'repos' | 'writer'>; clock: Clock }): SupportGrantsService {
  const { store, clock } = deps;
  const { repos } = store;

  const view = supportGrantView;

  function assertOrgAdmin(principal: UserPrincipal): void {
    const role = repos.tenancy.orgRole(principal.orgId, principal.userId);
    if (role !== 'owner' && role !== 'admin') throw forbidden('Only an organization Owner or Admin can share a session with support.');
  }

  return {
    async create(principal, body) {
      const session = await visibleSession(repos, principal, body.sessionId);
      assertOrgAdmin(principal);
      const partnerId = repos.tenancy.organization(principal.orgId)?.partnerId ?? null;
      if (partnerId === null) throw new AppError('CONFLICT', 'This organization has no partner platform to share the session with.');
      const now = clock.now();
      const row: SupportGrant = {
        id: newId(),
        orgId: principal.orgId,
        partnerId,
        sessionId: session.id,
        createdBy: principal.userId,
        createdAt: now,
        expiresAt: now + body.expiresInHours * HOUR,
        revokedAt: null,
      };
      await store.writer.submit(() => repos.supportGrants.insert(row));
      return view(row);
    },

    async revoke(principal, grantId) {
      const row = isUuid(grantId) ? repos.supportGrants.grant(grantId) : undefined;
      if (row === undefined || row.orgId !== principal.orgId) throw notFound();
      assertOrgAdmin(principal);
      const now = clock.now();
      await store.writer.submit(() => repos.supportGrants.revoke(row.id, now));
      return view(repos.supportGrants.grant(row.id)!);
    },

    read(lease, grantId) {
      const grant = isUuid(grantId) ? repos.supportGrants.grant(grantId) : undefined;
      // Another partner's grant, another organization's, expired, revoked and unknown all look alike.
      const usable = grant !== undefined && grant.partnerId === lease.partnerId && grant.orgId === lease.orgId && grant.revokedAt === null && grant.expiresAt > clock.now();
      const session = usable ? repos.sessions.session(grant.sessionId) : undefined;
      if (!usable || session === undefined) throw notFound();
      const pending = repos.approvals.pendingOfSession(session.id);
      return {
        grantId: grant.id,
        expiresAt: toIso(grant.expiresAt),
        session: {
          sessionId: session.id,
          automationId: session.automationId,
          domainId: session.domainId,
          status: session.status,
          createdAt: toIso(session.createdAt),
          updatedAt: toIso(session.updatedAt),
          messages: repos.sessions.visibleMessages(session.id).map((m) => ({
            role: m.role as 'user' | 'assistant',
            text: m.content,
            createdAt: toIso(m.createdAt),
            ...(m.authorUserId === null ? {} : { author: { userId: m.authorUserId, name: m.authorName } }),
          })),
          // The tool arguments stay out of the support view: support reads the conversation, not the payloads.
          pendingApproval: pending === undefined ? null : { approvalId: pending.id, toolName: pending.tool ?? '', requestedAt: toIso(pending.createdAt) },
        },
      };
    },
  };
}
