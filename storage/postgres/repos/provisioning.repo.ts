// Provisioning claims, onboarding runs and owner invitations on PostgreSQL (storage/repos/provisioning.repo.ts's functions, async).
import type { Invitation, OnboardingRun, ProvisioningClaim } from '../../records/provisioning.js';
import { insert, json, one, run, scalar, upsert, write, type Queryable } from './sql.js';
import { provisioningRows } from '../../rows/provisioning.js';
import { postgresCodec } from '../../row-codec.js';

const { claimFromRow, claimToRow, runFromRow, runToRow, invitationFromRow, invitationToRow } = provisioningRows(postgresCodec);

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
