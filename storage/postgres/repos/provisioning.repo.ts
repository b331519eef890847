// Provisioning claims, onboarding runs and owner invitations on PostgreSQL (storage/repos/provisioning.repo.ts's functions, async).
import type {
  Invitation, OnboardingRun, OnboardingStatus, OnboardingStep, ProvisioningClaim, ProvisioningClaimState,
} from '../../records/provisioning.js';
import { insert, json, jsonArray, one, run, scalar, upsert, write, type Queryable } from './sql.js';

interface ProvisioningClaimRow {
  partner_key_id: string;
  key: string;
  actor_id: string;
  fingerprint: Buffer;
  state: ProvisioningClaimState;
  status_code: number | null;
  org_id: string | null;
  created_at: number;
  expires_at: number;
  updated_at: number;
}

interface OnboardingRunRow {
  id: string;
  org_id: string;
  partner_id: string;
  template_id: string | null;
  status: OnboardingStatus;
  /** jsonb: `[{ step, status }]`, parsed by pg. */
  steps: unknown;
  error: string | null;
  created_at: number;
  updated_at: number;
}

interface InvitationRow {
  id: string;
  user_id: string;
  token_hash: Buffer;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

const claimFromRow = (r: ProvisioningClaimRow): ProvisioningClaim => ({
  partnerKeyId: r.partner_key_id,
  key: r.key,
  actorId: r.actor_id,
  fingerprint: r.fingerprint,
  state: r.state,
  statusCode: r.status_code,
  orgId: r.org_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  updatedAt: r.updated_at,
});

const claimToRow = (c: ProvisioningClaim) => ({
  partner_key_id: c.partnerKeyId,
  key: c.key,
  actor_id: c.actorId,
  fingerprint: c.fingerprint,
  state: c.state,
  status_code: c.statusCode,
  org_id: c.orgId,
  created_at: c.createdAt,
  expires_at: c.expiresAt,
  updated_at: c.updatedAt,
});

const runFromRow = (r: OnboardingRunRow): OnboardingRun => ({
  id: r.id,
  orgId: r.org_id,
  partnerId: r.partner_id,
  templateId: r.template_id,
  status: r.status,
  steps: jsonArray<OnboardingStep>(r.steps),
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const runToRow = (r: OnboardingRun) => ({
  id: r.id,
  org_id: r.orgId,
  partner_id: r.partnerId,
  template_id: r.templateId,
  status: r.status,
  steps: json(r.steps),
  error: r.error,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

const invitationFromRow = (r: InvitationRow): Invitation => ({
  id: r.id,
  userId: r.user_id,
  tokenHash: r.token_hash,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  createdAt: r.created_at,
});

const invitationToRow = (i: Invitation) => ({
  id: i.id,
  user_id: i.userId,
  token_hash: i.tokenHash,
  expires_at: i.expiresAt,
  used_at: i.usedAt,
  created_at: i.createdAt,
});

export function createPostgresProvisioningRepo(q: Queryable) {
  return {
    upsertClaim: (claim: ProvisioningClaim): Promise<void> =>
      upsert(q, 'provisioning_claims', claimToRow(claim), '(partner_key_id, key)', [
        'fingerprint', 'state', 'status_code', 'org_id', 'created_at', 'expires_at', 'updated_at',
      ]),
    claim: (partnerKeyId: string, key: string) =>
      one(q, 'SELECT * FROM provisioning_claims WHERE partner_key_id = $1 AND key = $2', [partnerKeyId, key], claimFromRow),
    claimByActor: (actorId: string) => one(q, 'SELECT * FROM provisioning_claims WHERE actor_id = $1', [actorId], claimFromRow),
    setClaimOrganization: (actorId: string, orgId: string, now: number): Promise<void> =>
      write(q, 'UPDATE provisioning_claims SET org_id = $1, updated_at = $2 WHERE actor_id = $3', [orgId, now, actorId]),
    deleteClaim: async (actorId: string): Promise<boolean> => (await run(q, 'DELETE FROM provisioning_claims WHERE actor_id = $1', [actorId])) > 0,
    countClaims: async (partnerKeyId: string): Promise<number> =>
      (await scalar<number>(q, 'SELECT count(*) FROM provisioning_claims WHERE partner_key_id = $1', [partnerKeyId]))!,
    insertOnboardingRun: (onboarding: OnboardingRun): Promise<void> => insert(q, 'onboarding_runs', runToRow(onboarding)),
    updateOnboardingRun: (r: Pick<OnboardingRun, 'id' | 'status' | 'steps' | 'error' | 'updatedAt'>): Promise<void> =>
      write(q, 'UPDATE onboarding_runs SET status = $1, steps = $2, error = $3, updated_at = $4 WHERE id = $5', [
        r.status, json(r.steps), r.error, r.updatedAt, r.id,
      ]),
    onboardingRun: (id: string) => one(q, 'SELECT * FROM onboarding_runs WHERE id = $1', [id], runFromRow),
    latestOnboardingRun: (orgId: string) =>
      one(q, 'SELECT * FROM onboarding_runs WHERE org_id = $1 ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT 1', [orgId], runFromRow),
    countOnboardingRuns: async (orgId: string): Promise<number> =>
      (await scalar<number>(q, 'SELECT count(*) FROM onboarding_runs WHERE org_id = $1', [orgId]))!,
    insertInvitation: (invitation: Invitation): Promise<void> => insert(q, 'invitations', invitationToRow(invitation)),
    invitationByHash: (hash: Buffer) => one(q, 'SELECT * FROM invitations WHERE token_hash = $1', [hash], invitationFromRow),
    /**
     * Marks the invitation used; false when it was used already or has expired (nothing written). Single use across
     * nodes: a second redemption waits on the row lock, then re-checks `used_at IS NULL` on the updated row and misses.
     */
    useInvitation: async (id: string, now: number): Promise<boolean> =>
      (await run(q, 'UPDATE invitations SET used_at = $1 WHERE id = $2 AND used_at IS NULL AND expires_at > $1', [now, id])) > 0,
  };
}
