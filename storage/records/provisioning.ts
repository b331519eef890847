// Domain records for provisioning: claim projections, onboarding runs and owner invitations (storage/repos/provisioning.repo.ts).

export type ProvisioningClaimState = 'in_progress' | 'completed' | 'released' | 'indeterminate';

export interface ProvisioningClaim {
  partnerKeyId: string;
  key: string;
  /** The provisioning-claim actor that owns this record (its snapshot's actor id). */
  actorId: string;
  fingerprint: Buffer;
  state: ProvisioningClaimState;
  statusCode: number | null;
  orgId: string | null;
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
}

export type OnboardingStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface OnboardingStep {
  step: 'organization' | 'owner' | 'domain' | 'automations';
  status: 'completed' | 'failed';
}

export interface OnboardingRun {
  id: string;
  orgId: string;
  partnerId: string;
  templateId: string | null;
  status: OnboardingStatus;
  /** In the order the steps ran. */
  steps: OnboardingStep[];
  /** A short failure label (never a cause that could quote request data). */
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface Invitation {
  id: string;
  userId: string;
  tokenHash: Buffer;
  expiresAt: number;
  usedAt: number | null;
  createdAt: number;
}
