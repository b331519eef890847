// The provisioning outcome body (SPEC "Provisioning outcome"): the original answer, and the stored replay without the invitation.
import { toIso } from '../clock.js';
import type { OnboardingStatus } from '../../storage/records/provisioning.js';
import type { ProvisioningBody } from './provisioning-request.js';
import type { CustomerRecord, OnboardingStep } from './customer-record.js';
import type { ReleaseDetail } from './onboarding.js';

export interface ProvisioningOutcome {
  organization: { id: string; name: string; clientSegment: string; directLoginDisabled: boolean };
  owner: {
    userId: string;
    email: string;
    name: string;
    /** Single-use activation link; only in the original response, null in every replay (rule 5). */
    invitation: string | null;
    invitationExpiresAt: string;
  };
  domain: { id: string; name: string };
  onboardingStatus: OnboardingStatus;
  onboarding: { runId: string; steps: OnboardingStep[] };
  release: ReleaseDetail;
  provisionedAt: string;
}

export function buildOutcome(
  record: CustomerRecord,
  body: ProvisioningBody,
  onboarding: { domain: { id: string; name: string }; release: ReleaseDetail; steps: OnboardingStep[] },
  invitation: string,
  now: number,
): ProvisioningOutcome {
  return {
    organization: { id: record.orgId, name: body.clientName, clientSegment: body.clientSegment, directLoginDisabled: body.directLoginDisabled },
    owner: { userId: record.ownerUserId, email: body.ownerEmail, name: body.ownerName, invitation, invitationExpiresAt: toIso(record.invitationExpiresAt) },
    domain: onboarding.domain,
    onboardingStatus: 'completed',
    onboarding: { runId: record.runId, steps: onboarding.steps },
    release: onboarding.release,
    provisionedAt: toIso(now),
  };
}

/** What the claim keeps: the same outcome, never the activation secret (SPEC rule 5). */
export function storedOutcome(outcome: ProvisioningOutcome): ProvisioningOutcome {
  return { ...outcome, owner: { ...outcome.owner, invitation: null } };
}

/** The activation link handed to the owner; the secret rides in the fragment, which browsers never send to servers or in Referer. */
export function activationLink(baseUrl: string, secret: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/console/activate#token=${secret}`;
}
