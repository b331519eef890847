// Provisioning: the claim projection rows, onboarding runs of provisioned customers, and single-use owner invitations.
import type { SqliteDatabase } from '../database.js';
import type {
  Invitation, OnboardingRun, OnboardingStatus, OnboardingStep, ProvisioningClaim, ProvisioningClaimState,
} from '../records/provisioning.js';
import { jsonColumn, mapOptional } from '../row-mapping.js';

export type { OnboardingStatus, ProvisioningClaimState } from '../records/provisioning.js';

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
  /** JSON: `[{ step, status }]`. */
  steps: string;
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

const claimToRow = (c: ProvisioningClaim): ProvisioningClaimRow => ({
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
  steps: (jsonColumn(r.steps) ?? []) as OnboardingStep[],
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const runToRow = (r: OnboardingRun): OnboardingRunRow => ({
  id: r.id,
  org_id: r.orgId,
  partner_id: r.partnerId,
  template_id: r.templateId,
  status: r.status,
  steps: JSON.stringify(r.steps),
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

const invitationToRow = (i: Invitation): InvitationRow => ({
  id: i.id,
  user_id: i.userId,
  token_hash: i.tokenHash,
  expires_at: i.expiresAt,
  used_at: i.usedAt,
  created_at: i.createdAt,
});

export function createProvisioningRepo(db: SqliteDatabase) {
  const s = {
    upsertClaim: db.prepare(
      `INSERT INTO provisioning_claims (partner_key_id, key, actor_id, fingerprint, state, status_code, org_id, created_at, expires_at, updated_at)
       VALUES (@partner_key_id, @key, @actor_id, @fingerprint, @state, @status_code, @org_id, @created_at, @expires_at, @updated_at)
       ON CONFLICT (partner_key_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = excluded.state,
         status_code = excluded.status_code, org_id = excluded.org_id, created_at = excluded.created_at,
         expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
    ),
    claim: db.prepare('SELECT * FROM provisioning_claims WHERE partner_key_id = ? AND key = ?'),
    claimByActor: db.prepare('SELECT * FROM provisioning_claims WHERE actor_id = ?'),
    setClaimOrg: db.prepare('UPDATE provisioning_claims SET org_id = ?, updated_at = ? WHERE actor_id = ?'),
    deleteClaim: db.prepare('DELETE FROM provisioning_claims WHERE actor_id = ?'),
    countClaims: db.prepare('SELECT COUNT(*) FROM provisioning_claims WHERE partner_key_id = ?').pluck(),
    insertRun: db.prepare(
      `INSERT INTO onboarding_runs (id, org_id, partner_id, template_id, status, steps, error, created_at, updated_at)
       VALUES (@id, @org_id, @partner_id, @template_id, @status, @steps, @error, @created_at, @updated_at)`,
    ),
    updateRun: db.prepare('UPDATE onboarding_runs SET status = @status, steps = @steps, error = @error, updated_at = @updated_at WHERE id = @id'),
    run: db.prepare('SELECT * FROM onboarding_runs WHERE id = ?'),
    latestRunOfOrg: db.prepare('SELECT * FROM onboarding_runs WHERE org_id = ? ORDER BY created_at DESC, id DESC LIMIT 1'),
    countRunsOfOrg: db.prepare('SELECT COUNT(*) FROM onboarding_runs WHERE org_id = ?').pluck(),
    insertInvitation: db.prepare(
      `INSERT INTO invitations (id, user_id, token_hash, expires_at, used_at, created_at)
       VALUES (@id, @user_id, @token_hash, @expires_at, @used_at, @created_at)`,
    ),
    invitationByHash: db.prepare('SELECT * FROM invitations WHERE token_hash = ?'),
    // Single use: only the first redemption changes the row.
    useInvitation: db.prepare('UPDATE invitations SET used_at = ? WHERE id = ? AND used_at IS NULL AND expires_at > ?'),
  };
  return {
    upsertClaim: (claim: ProvisioningClaim): void => void s.upsertClaim.run(claimToRow(claim)),
    claim: (partnerKeyId: string, key: string) => mapOptional(s.claim.get(partnerKeyId, key), claimFromRow),
    claimByActor: (actorId: string) => mapOptional(s.claimByActor.get(actorId), claimFromRow),
    setClaimOrganization: (actorId: string, orgId: string, now: number): void => void s.setClaimOrg.run(orgId, now, actorId),
    deleteClaim: (actorId: string): boolean => s.deleteClaim.run(actorId).changes > 0,
    countClaims: (partnerKeyId: string) => s.countClaims.get(partnerKeyId) as number,
    insertOnboardingRun: (run: OnboardingRun): void => void s.insertRun.run(runToRow(run)),
    updateOnboardingRun: (run: Pick<OnboardingRun, 'id' | 'status' | 'steps' | 'error' | 'updatedAt'>): void =>
      void s.updateRun.run({ id: run.id, status: run.status, steps: JSON.stringify(run.steps), error: run.error, updated_at: run.updatedAt }),
    onboardingRun: (id: string) => mapOptional(s.run.get(id), runFromRow),
    latestOnboardingRun: (orgId: string) => mapOptional(s.latestRunOfOrg.get(orgId), runFromRow),
    countOnboardingRuns: (orgId: string) => s.countRunsOfOrg.get(orgId) as number,
    insertInvitation: (invitation: Invitation): void => void s.insertInvitation.run(invitationToRow(invitation)),
    invitationByHash: (hash: Buffer) => mapOptional(s.invitationByHash.get(hash), invitationFromRow),
    /** Marks the invitation used; false when it was used already or has expired (nothing written). */
    useInvitation: (id: string, now: number): boolean => s.useInvitation.run(now, id, now).changes > 0,
  };
}

export type ProvisioningRepo = ReturnType<typeof createProvisioningRepo>;
