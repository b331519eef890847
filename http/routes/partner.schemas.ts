// Response schemas of the partner routes (docs/partner-api.md), held equal to the runtime's view types by tsc.
import { z } from 'zod';
import type { Same } from '../openapi/same-type.js';
import type { CustomerStatus } from '../../runtime/partners/customer-status.js';
import type { EntitlementView } from '../../runtime/partners/entitlements.js';
import type { ProvisioningOutcome } from '../../runtime/partners/provisioning-outcome.js';
import type { SupportGrantView, SupportSessionView } from '../../runtime/partners/support-grants.service.js';
import type { WorkerApprovalsPage } from '../../runtime/partners/worker-approvals.service.js';
import type { WorkerView } from '../../runtime/partners/workers.service.js';

const OnboardingStatus = z.enum(['pending', 'running', 'completed', 'failed']);
const OnboardingStep = z.object({ step: z.enum(['organization', 'owner', 'domain', 'automations']), status: z.enum(['completed', 'failed']) });

export const ProvisioningOutcomeSchema = z
  .object({
    organization: z.object({ id: z.uuid(), name: z.string(), clientSegment: z.string(), directLoginDisabled: z.boolean() }),
    owner: z.object({
      userId: z.uuid(),
      email: z.string(),
      name: z.string(),
      invitation: z.string().nullable().describe('Single-use activation link: in the original answer only, null in every replay.'),
      invitationExpiresAt: z.iso.datetime(),
    }),
    domain: z.object({ id: z.uuid(), name: z.string() }),
    onboardingStatus: OnboardingStatus,
    onboarding: z.object({ runId: z.uuid(), steps: z.array(OnboardingStep) }),
    release: z.object({
      template: z.object({ id: z.string(), ref: z.string() }),
      digest: z.string(),
      automations: z.array(
        z.object({ automationId: z.uuid(), ref: z.string(), kind: z.enum(['agent', 'flow']), name: z.string(), revision: z.number().int().nullable(), entitledByDefault: z.boolean() }),
      ),
    }),
    provisionedAt: z.iso.datetime(),
  })
  .meta({ id: 'ProvisioningOutcome' });

export const CustomerStatusSchema = z.object({
  organization: z.object({ id: z.uuid(), name: z.string(), clientSegment: z.string().nullable(), directLoginDisabled: z.boolean(), suspendedAt: z.iso.datetime().nullable().describe('Set while the platform suspended this customer (POST …/suspend).'), createdAt: z.iso.datetime() }),
  onboardingStatus: OnboardingStatus,
  onboarding: z.object({ runId: z.uuid(), status: OnboardingStatus, steps: z.array(OnboardingStep), error: z.string().nullable(), updatedAt: z.iso.datetime() }).nullable(),
});

const Enabled = z.object({ enabled: z.boolean() });
export const EntitlementSchema = z
  .object({
    automationId: z.uuid(),
    kind: z.enum(['agent', 'flow']),
    name: z.string(),
    domainId: z.uuid(),
    default: Enabled,
    override: Enabled.nullable(),
    resolved: z.object({ enabled: z.boolean(), source: z.enum(['override', 'default']) }),
  })
  .meta({ id: 'Entitlement' });

export const SupportGrantSchema = z
  .object({ grantId: z.uuid(), sessionId: z.uuid(), partnerId: z.uuid(), createdAt: z.iso.datetime(), expiresAt: z.iso.datetime(), revokedAt: z.iso.datetime().nullable() })
  .meta({ id: 'SupportGrant' });

export const SupportSessionSchema = z.object({
  grantId: z.uuid(),
  expiresAt: z.iso.datetime(),
  session: z.object({
    sessionId: z.uuid(),
    automationId: z.uuid(),
    domainId: z.uuid(),
    status: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    messages: z.array(
      z.object({ role: z.enum(['user', 'assistant']), text: z.string(), createdAt: z.iso.datetime(), author: z.object({ userId: z.uuid(), name: z.string().nullable() }).optional() }),
    ),
    pendingApproval: z.object({ approvalId: z.uuid(), toolName: z.string(), requestedAt: z.iso.datetime() }).nullable(),
  }),
});

export const WorkerApprovalsPageSchema = z.object({
  approvals: z.array(
    z.object({
      approvalId: z.uuid(),
      kind: z.enum(['turn', 'run', 'confirmation']),
      sessionId: z.uuid(),
      runId: z.uuid().nullable(),
      executionId: z.uuid(),
      automationId: z.uuid(),
      automationName: z.string(),
      domainId: z.uuid(),
      toolName: z.string().nullable(),
      args: z.unknown(),
      requestedAt: z.iso.datetime(),
    }),
  ),
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int(),
});

export const WorkerSchema = z
  .object({
    mappingId: z.uuid(),
    partnerSubject: z.string(),
    userId: z.uuid(),
    name: z.string(),
    email: z.string(),
    domainRoles: z.array(z.object({ domainId: z.uuid(), role: z.enum(['owner', 'editor', 'operator', 'viewer']), approver: z.boolean() })),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Worker' });

// tsc fails here when a schema and the runtime type it documents drift apart.
const matches: [
  Same<z.output<typeof ProvisioningOutcomeSchema>, ProvisioningOutcome>,
  Same<z.output<typeof CustomerStatusSchema>, CustomerStatus>,
  Same<z.output<typeof EntitlementSchema>, EntitlementView>,
  Same<z.output<typeof SupportGrantSchema>, SupportGrantView>,
  Same<z.output<typeof SupportSessionSchema>, SupportSessionView>,
  Same<z.output<typeof WorkerApprovalsPageSchema>, WorkerApprovalsPage>,
  Same<z.output<typeof WorkerSchema>, WorkerView>,
] = [true, true, true, true, true, true, true];
void matches;
