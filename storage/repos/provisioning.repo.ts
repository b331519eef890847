// Provisioning: the claim projection rows, onboarding runs of provisioned customers, and single-use owner invitations.
import type { SqliteDatabase } from '../database.js';

export type ProvisioningClaimState = 'in_progress' | 'completed' | 'released' | 'indeterminate';

export interface ProvisioningClaimRow {
  partner_key_id: string;
  key: string;
  /** The provisioning-claim actor that owns this row (actor_snapshots.actor_id). */
  actor_id: string;
  fingerprint: Buffer;
  state: ProvisioningClaimState;
  status_code: number | null;
  org_id: string | null;
  created_at: number;
  expires_at: number;
  updated_at: number;
}

export type OnboardingStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface OnboardingRunRow {
  id: string;
  org_id: string;
  partner_id: string;
  template_id: string | null;
  status: OnboardingStatus;
  /** JSON: `[{ step, status, at }]` in the order the steps ran. */
  steps: string;
  /** A short failure label (never a cause that could quote request data). */
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface InvitationRow {
  id: string;
  user_id: string;
  token_hash: Buffer;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

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
    upsertClaim: (row: ProvisioningClaimRow): void => void s.upsertClaim.run(row),
    claim: (partnerKeyId: string, key: string) => s.claim.get(partnerKeyId, key) as ProvisioningClaimRow | undefined,
    claimByActor: (actorId: string) => s.claimByActor.get(actorId) as ProvisioningClaimRow | undefined,
    setClaimOrganization: (actorId: string, orgId: string, now: number): void => void s.setClaimOrg.run(orgId, now, actorId),
    deleteClaim: (actorId: string): boolean => s.deleteClaim.run(actorId).changes > 0,
    countClaims: (partnerKeyId: string) => s.countClaims.get(partnerKeyId) as number,
    insertOnboardingRun: (row: OnboardingRunRow): void => void s.insertRun.run(row),
    updateOnboardingRun: (row: Pick<OnboardingRunRow, 'id' | 'status' | 'steps' | 'error' | 'updated_at'>): void => void s.updateRun.run(row),
    onboardingRun: (id: string) => s.run.get(id) as OnboardingRunRow | undefined,
    latestOnboardingRun: (orgId: string) => s.latestRunOfOrg.get(orgId) as OnboardingRunRow | undefined,
    countOnboardingRuns: (orgId: string) => s.countRunsOfOrg.get(orgId) as number,
    insertInvitation: (row: InvitationRow): void => void s.insertInvitation.run(row),
    invitationByHash: (hash: Buffer) => s.invitationByHash.get(hash) as InvitationRow | undefined,
    /** Marks the invitation used; false when it was used already or has expired (nothing written). */
    useInvitation: (id: string, now: number): boolean => s.useInvitation.run(now, id, now).changes > 0,
  };
}

export type ProvisioningRepo = ReturnType<typeof createProvisioningRepo>;
