// The durable customer record, in one unit of work: standing checks, quota spend, organization, owner, invitation, onboarding run.
/*
 * Every check runs inside the same transaction as the writes it guards (units of work run one at a time), so two
 * requests can never both take the last unit of quota or the same clientSegment. A check that fails throws a
 * ProvisioningRefusal and nothing is written: the organization does not exist yet, so the claim is released.
 */
import type { Partner, PartnerTemplate } from '../../storage/records/partners.js';
import type { OnboardingStep } from '../../storage/records/provisioning.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import { DAY } from '../clock.js';
import { newId } from '../ids.js';
import { CLIENT_SEGMENT_HINT, clientSegmentProblem } from './client-segment.js';
import type { ProvisioningBody } from './provisioning-request.js';
import { ProvisioningRefusal } from './provisioning-refusal.js';
import { readTemplateDefinition, type TemplateDefinition } from './template-definition.js';

/** How long an owner's activation link works. */
export const INVITATION_TTL_MS = 7 * DAY;

export type { OnboardingStep } from '../../storage/records/provisioning.js';

export interface CustomerRecord {
  readonly partner: Partner;
  readonly template: PartnerTemplate;
  readonly definition: TemplateDefinition;
  readonly orgId: string;
  readonly ownerUserId: string;
  readonly runId: string;
  readonly invitationExpiresAt: number;
  readonly steps: OnboardingStep[];
}

export interface CustomerRecordInput {
  readonly partnerId: string;
  readonly partnerKeyId: string;
  readonly body: ProvisioningBody;
  /** SHA-256 of the owner's `svi_` activation secret (the secret itself is never stored). */
  readonly invitationHash: Buffer;
  readonly now: number;
}

type Repos = Pick<PortRepositories, 'partners' | 'tenancy' | 'provisioning'>;

/** The refusals, in the order a partner would fix them: standing, template, the request, identifiers, quota. */
async function check(repos: Repos, input: CustomerRecordInput): Promise<{ partner: Partner; template: PartnerTemplate; definition: TemplateDefinition }> {
  const { partners, tenancy } = repos;
  const partner = await partners.partner(input.partnerId);
  const key = await partners.partnerKey(input.partnerKeyId);
  if (partner === undefined || partner.suspended) {
    throw new ProvisioningRefusal('PARTNER_PLATFORM_SUSPENDED', 'This partner platform is not accepting provisioning.');
  }
  if (!partner.provisioningEnabled || key === undefined || !key.provisioningEnabled || key.revokedAt !== null) {
    throw new ProvisioningRefusal('PROVISIONING_NOT_ENABLED', 'This partner key is not entitled to create customers.');
  }
  const template = partner.templateId === null ? undefined : await partners.partnerTemplate(partner.templateId);
  if (template === undefined || template.suspended) {
    throw new ProvisioningRefusal('TEMPLATE_SUSPENDED', 'The provisioning template is unavailable.');
  }
  const definition = readTemplateDefinition(template);
  if (definition === null) throw new ProvisioningRefusal('PROVISIONING_FAILED', 'The provisioning template could not be read.', { onboardingStatus: 'not_started' });

  const { clientSegment, ownerEmail } = input.body;
  const problem = clientSegmentProblem(clientSegment);
  if (problem !== null) throw new ProvisioningRefusal('CLIENT_SEGMENT_INVALID', `The clientSegment is not valid: ${CLIENT_SEGMENT_HINT}.`, { rule: problem });
  const holder = await tenancy.organizationBySegment(clientSegment);
  if (holder !== undefined) {
    // Only the caller's own customer is named: another platform's customers stay invisible (neutrality).
    const existing = holder.partnerId === partner.id ? { organizationId: holder.id, clientSegment } : undefined;
    throw new ProvisioningRefusal('IDENTIFIER_TAKEN', 'The requested clientSegment is not available.', existing ? { field: 'clientSegment', existing } : { field: 'clientSegment' });
  }
  // An existing account is never handed to a new customer's invitation (that would let the link take it over).
  if ((await tenancy.userByEmail(ownerEmail)) !== undefined) {
    throw new ProvisioningRefusal('IDENTIFIER_TAKEN', 'The ownerEmail already belongs to an account; choose another owner email.', { field: 'ownerEmail' });
  }
  return { partner, template, definition };
}

/** Run inside a unit of work. Throws ProvisioningRefusal (nothing written) or writes the whole record. */
export async function createCustomerRecord(repos: Repos, input: CustomerRecordInput): Promise<CustomerRecord> {
  const { partner, template, definition } = await check(repos, input);
  // Last, because it writes: the durable allowance is spent in the same commit as the organization.
  if (!(await repos.partners.spendQuota(partner.id))) {
    throw new ProvisioningRefusal('QUOTA_EXHAUSTED', 'The customer allowance of this partner platform is spent; retries do not help until it is raised.', {
      quota: partner.quotaTotal,
    });
  }
  const { now, body } = input;
  const orgId = newId();
  const ownerUserId = newId();
  const runId = newId();
  const invitationExpiresAt = now + INVITATION_TTL_MS;
  const { tenancy, provisioning } = repos;
  await tenancy.insertOrganization({
    id: orgId,
    name: body.clientName,
    partnerId: partner.id,
    clientSegment: body.clientSegment,
    directLoginDisabled: body.directLoginDisabled,
    rolloutFlags: {},
    createdAt: now,
    suspendedAt: null,
  });
  // No password until the owner redeems the invitation: until then nobody can sign in as this person.
  await tenancy.insertUser({ id: ownerUserId, email: body.ownerEmail, name: body.ownerName, passwordHash: null, disabled: false, createdAt: now });
  await tenancy.setOrgRole(orgId, ownerUserId, 'owner', now);
  await provisioning.insertInvitation({ id: newId(), userId: ownerUserId, tokenHash: input.invitationHash, expiresAt: invitationExpiresAt, usedAt: null, createdAt: now });
  const steps: OnboardingStep[] = [
    { step: 'organization', status: 'completed' },
    { step: 'owner', status: 'completed' },
  ];
  await provisioning.insertOnboardingRun({
    id: runId,
    orgId: orgId,
    partnerId: partner.id,
    templateId: template.id,
    status: 'running',
    steps,
    error: null,
    createdAt: now,
    updatedAt: now,
  });
  return { partner, template, definition, orgId, ownerUserId, runId, invitationExpiresAt, steps };
}
