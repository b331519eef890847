// The provisioning_claims, onboarding_runs and invitations rows and their records: one mapping for both drivers.
import type { Invitation, OnboardingRun, OnboardingStatus, OnboardingStep, ProvisioningClaim, ProvisioningClaimState } from '../records/provisioning.js';
import type { RowCodec } from '../row-codec.js';

export interface ProvisioningClaimRow {
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

export interface OnboardingRunRow {
  id: string;
  org_id: string;
  partner_id: string;
  template_id: string | null;
  status: OnboardingStatus;
  /** JSON: `[{ step, status }]`. */
  steps: unknown;
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

/** The mappings for one driver's codec (storage/row-codec.ts). */
export function provisioningRows(codec: RowCodec) {
  return {
    claimFromRow: (r: ProvisioningClaimRow): ProvisioningClaim => ({
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
    }),

    claimToRow: (c: ProvisioningClaim): ProvisioningClaimRow => ({
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
    }),

    runFromRow: (r: OnboardingRunRow): OnboardingRun => ({
      id: r.id,
      orgId: r.org_id,
      partnerId: r.partner_id,
      templateId: r.template_id,
      status: r.status,
      steps: codec.jsonArray<OnboardingStep>(r.steps),
      error: r.error,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }),

    runToRow: (r: OnboardingRun): OnboardingRunRow => ({
      id: r.id,
      org_id: r.orgId,
      partner_id: r.partnerId,
      template_id: r.templateId,
      status: r.status,
      steps: codec.toJson(r.steps),
      error: r.error,
      created_at: r.createdAt,
      updated_at: r.updatedAt,
    }),

    invitationFromRow: (r: InvitationRow): Invitation => ({
      id: r.id,
      userId: r.user_id,
      tokenHash: r.token_hash,
      expiresAt: r.expires_at,
      usedAt: r.used_at,
      createdAt: r.created_at,
    }),

    invitationToRow: (i: Invitation): InvitationRow => ({
      id: i.id,
      user_id: i.userId,
      token_hash: i.tokenHash,
      expires_at: i.expiresAt,
      used_at: i.usedAt,
      created_at: i.createdAt,
    }),
  };
}
