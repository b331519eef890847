// Provisioning: the claim projection rows, onboarding runs of provisioned customers, and single-use owner invitations.
import type { SqliteDatabase } from '../database.js';
import type { Invitation, OnboardingRun, OnboardingStatus, ProvisioningClaim, ProvisioningClaimState } from '../records/provisioning.js';
import { mapOptional } from '../row-mapping.js';
import { provisioningRows } from '../rows/provisioning.js';
import { sqliteCodec } from '../row-codec.js';

export type { OnboardingStatus, ProvisioningClaimState } from '../records/provisioning.js';

const { claimFromRow, claimToRow, runFromRow, runToRow, invitationFromRow, invitationToRow } = provisioningRows(sqliteCodec);

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
