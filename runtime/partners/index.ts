// Re-exports the partner API runtime by name.
export { createPartnersRuntime, type PartnersRuntime, type PartnersRuntimeDeps } from './partners.runtime.js';
export { isEntitled, createEntitlementsService, entitlementBodySchema, type EntitlementView, type EntitlementsService } from './entitlements.js';
export { createPartnerAuthenticator, type PartnerAuthenticator } from './partner-credentials.js';
export { customerOf } from './customer-of.js';
export { customerStatus, type CustomerStatus } from './customer-status.js';
export { CLIENT_SEGMENT_RULES, clientSegmentProblem, type SegmentProblem } from './client-segment.js';
export { PROVISIONING_LIMITS, provisioningBodySchema, provisioningFingerprint, type ProvisioningBody } from './provisioning-request.js';
export {
  CLAIM_EXPIRY_TIMER,
  CLAIM_LEASE_TIMER,
  PROVISIONING_CLAIM_KIND,
  PROVISIONING_LEASE_MS,
  claimActorId,
  createProvisioningClaims,
  type Acquired,
  type ClaimRef,
  type ProvisioningClaims,
} from './provisioning-claims.js';
export { createProvisioningService, type ProvisionRequest, type ProvisionResult, type ProvisioningHooks, type ProvisioningService } from './provisioning.service.js';
export { ProvisioningRefusal, isRefusalCode } from './provisioning-refusal.js';
export { INVITATION_TTL_MS, createCustomerRecord, type CustomerRecord, type OnboardingStep } from './customer-record.js';
export { DEFAULT_DOMAIN_NAME, applyOnboarding, templateDigest, type ReleaseDetail, type ReleasedAutomation } from './onboarding.js';
export { activationLink, buildOutcome, storedOutcome, type ProvisioningOutcome } from './provisioning-outcome.js';
export { createActivationService, type ActivationResult, type ActivationService } from './activation.service.js';
export { LEASE_TTL_MS, createLeasesService, type LeasesService, type MintedLease } from './leases.service.js';
export { WORKER_LIMITS, createWorkersService, partnerSubjectSchema, vouchBodySchema, type VouchBody, type WorkerView, type WorkersService } from './workers.service.js';
export { SUPPORT_GRANT_LIMITS, createSupportGrantsService, supportGrantBodySchema, type SupportGrantView, type SupportGrantsService, type SupportSessionView } from './support-grants.service.js';
export {
  WORKER_APPROVALS_PAGE,
  createWorkerApprovalsService,
  workerApprovalsQuerySchema,
  workerCaller,
  type WorkerApprovalItem,
  type WorkerApprovalsPage,
  type WorkerApprovalsService,
} from './worker-approvals.service.js';
export { resolveTenantSubject, type TenantCaller } from './tenant-subject.js';
export { readTemplateDefinition, TemplateDefinitionSchema, type TemplateDefinition } from './template-definition.js';
