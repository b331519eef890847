// POST /organizations as a service: claim the key, create the customer record, onboard it, settle the claim.
/*
 * Commit boundaries, and what a failure at each one means for the claim (SPEC "States and transitions"):
 *   1. claim             -> in progress (a lost race answers 409 IDEMPOTENCY_IN_PROGRESS or replays)
 *   2. customer record   -> checks + quota + organization + owner + invitation + onboarding run, one transaction.
 *                           A refusal or any failure here committed nothing: REFUSE, the claim is released.
 *   3. onboarding        -> domain + template agents and flows; the run becomes 'completed'.
 *   4. complete          -> the stored outcome (invitation null) is replayed for 7 days.
 * After 2 committed, execution has begun: any failure before 4 commits leaves the claim indeterminate, and later
 * requests get IDEMPOTENCY_OUTCOME_UNKNOWN. The original request answers PROVISIONING_FAILED with the
 * onboarding state, so the partner can reconcile the organization that exists.
 */
import type { Storage } from '../../storage/port/storage.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { hashSecret, mintSecret } from '../auth/secrets.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { retryLostInsert } from '../lost-insert.js';
import type { Logger } from '../logger.js';
import type { KeyRing } from '../vault/index.js';
import { createCustomerRecord, type CustomerRecord } from './customer-record.js';
import { applyOnboarding } from './onboarding.js';
import type { ProvisioningClaims } from './provisioning-claims.js';
import { activationLink, buildOutcome, storedOutcome } from './provisioning-outcome.js';
import { ProvisioningRefusal } from './provisioning-refusal.js';
import type { ProvisioningBody } from './provisioning-request.js';

/** Seams for tests only: a throw from a hook is an unknown failure at that point of provisioning. */
export interface ProvisioningHooks {
  /** After the customer record committed, before onboarding. */
  afterOrganizationCreated?: (orgId: string) => void | Promise<void>;
}

export interface ProvisionRequest {
  readonly principal: PartnerPrincipal;
  readonly idempotencyKey: string;
  readonly body: ProvisioningBody;
  /** provisioningFingerprint of the body as sent. */
  readonly fingerprint: string;
  /** Public base URL the activation link starts with. */
  readonly linkBase: string;
}

export interface ProvisionResult {
  readonly status: number;
  readonly body: unknown;
  /** True when this is the stored outcome of an earlier request (header `Idempotency-Replayed: true`). */
  readonly replayed: boolean;
}

export interface ProvisioningService {
  provision(request: ProvisionRequest): Promise<ProvisionResult>;
  readonly hooks: ProvisioningHooks;
  readonly claims: ProvisioningClaims;
}

export function createProvisioningService(deps: {
  store: Pick<Storage, 'repos' | 'writer'>;
  clock: Clock;
  keyRing: KeyRing;
  logger: Pick<Logger, 'warn' | 'error'>;
  claims: ProvisioningClaims;
}): ProvisioningService {
  const { store, clock, keyRing, logger, claims } = deps;
  const hooks: ProvisioningHooks = {};

  async function markRunFailed(record: CustomerRecord): Promise<void> {
    try {
      await store.writer.submit(async (tx) => {
        const run = await tx.repos.provisioning.onboardingRun(record.runId);
        if (run === undefined || run.status === 'completed') return;
        await tx.repos.provisioning.updateOnboardingRun({ id: run.id, status: 'failed', steps: run.steps, error: 'onboarding_interrupted', updatedAt: clock.now() });
      });
    } catch (error) {
      logger.error({ runId: record.runId, err: errorType(error) }, 'could not record the failed onboarding run');
    }
  }

  async function provision(request: ProvisionRequest): Promise<ProvisionResult> {
    const { principal, body } = request;
    const ref = { partnerKeyId: principal.partnerKeyId, key: request.idempotencyKey };
    const owner = newId();
    const acquired = await claims.acquire(ref, request.fingerprint, owner);
    if (acquired.kind === 'replay') return { status: acquired.response.status, body: acquired.response.body, replayed: true };

    const invitation = mintSecret('svi_');
    let record: CustomerRecord;
    try {
      // Two customers racing for one clientSegment or ownerEmail: the loser runs again and meets IDENTIFIER_TAKEN.
      record = await retryLostInsert(['organizations', 'users'], () => store.writer.submit(async (tx) => {
        const created = await createCustomerRecord(tx.repos, {
          partnerId: principal.partnerId,
          partnerKeyId: principal.partnerKeyId,
          body,
          invitationHash: hashSecret(invitation),
          now: clock.now(),
        });
        await claims.recordOrganization(tx.repos, ref, created.orgId);
        return created;
      }));
    } catch (error) {
      // Nothing of the customer committed, so the outcome is known: release the key.
      const refusal = error instanceof ProvisioningRefusal ? error : new ProvisioningRefusal('PROVISIONING_FAILED', 'The customer could not be created.', { onboardingStatus: 'not_started' });
      if (!(error instanceof ProvisioningRefusal)) logger.error({ err: errorType(error) }, 'customer record failed; claim released');
      await claims.refuse(ref, owner, refusal.refusal);
      throw refusal;
    }

    try {
      await hooks.afterOrganizationCreated?.(record.orgId);
      const now = clock.now();
      const onboarding = await store.writer.submit((tx) => applyOnboarding({ repos: tx.repos, keyRing }, record, { domainName: body.domainName, now }));
      const outcome = buildOutcome(record, body, onboarding, activationLink(request.linkBase, invitation), now);
      await claims.complete(ref, owner, { status: 202, body: storedOutcome(outcome) });
      return { status: 202, body: outcome, replayed: false };
    } catch (error) {
      logger.error({ orgId: record.orgId, err: errorType(error) }, 'provisioning failed after the organization was created; claim left indeterminate');
      await markRunFailed(record);
      await claims.failUnknown(ref, owner).catch((failure: unknown) => logger.error({ err: errorType(failure) }, 'could not mark the claim indeterminate'));
      throw new AppError('PROVISIONING_FAILED', 'Provisioning could not complete; inspect the onboarding state before retrying.', {
        organization: { id: record.orgId, clientSegment: body.clientSegment },
        onboardingStatus: 'failed',
        onboarding: { runId: record.runId },
      });
    }
  }

  return { provision, hooks, claims };
}

/** Class name only: a message may quote request data. */
const errorType = (error: unknown): string => (error instanceof Error ? error.name : typeof error);
