// Provisioning idempotency claims: one provisioning-claim actor per (partner key, Idempotency-Key), its projection row and timers.
/*
 * Protocol (SPEC "States and transitions", provisioning rows; "Provisioning rules"; Limits):
 * - acquire(): the verdict (provisioningRequestVerdict) from the actor's committed snapshot; a claiming verdict
 *   sends CLAIM through the registry, whose unit of work also writes the projection row and two durable timers
 *   (owner lease, 7-day expiry). The verdict is read outside the actor's lock, so the unit re-checks that this
 *   request's CLAIM moved the actor; if another request got there first nothing commits and the verdict is read again.
 * - The request that holds the claim settles it: COMPLETE (stored outcome, replayed for 7 days), REFUSE (a named
 *   refusal before the organization exists: released, the key is free again) or FAIL_UNKNOWN (indeterminate).
 * - A dead owner (process crash mid-provisioning) is found by its lease timer: OWNER_LOST, indeterminate.
 * - 7 days after creation the expiry timer sends TICK: the claim expires and both of its rows are swept. A request
 *   arriving after the window but before the timer expires the claim itself and runs fresh.
 */
import {
  MACHINE_VERSION,
  provisioningClaimMachine,
  provisioningRequestVerdict,
  type ProvisioningClaimSnapshot,
  type ProvisioningRefusalCode,
  type StoredResponse,
} from '../../machines/provisioning-claim.machine.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { ProvisioningClaimState } from '../../storage/records/provisioning.js';
import type { ActorKindHandle, ActorRegistry, ActorStep, StepUnit } from '../actors/index.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Scheduler, TimerDelivery, TimerRepos } from '../scheduler/index.js';

export const PROVISIONING_CLAIM_KIND = 'provisioning-claim';
export const CLAIM_EXPIRY_TIMER = 'provisioning-claim-expiry';
export const CLAIM_LEASE_TIMER = 'provisioning-claim-lease';
/** How long a claim may stay in progress before it is presumed abandoned (provisioning runs inside one request). */
export const PROVISIONING_LEASE_MS = 5 * 60_000;

type Handle = ActorKindHandle<typeof provisioningClaimMachine>;
type Step = ActorStep<typeof provisioningClaimMachine>;

export interface ClaimRef {
  readonly partnerKeyId: string;
  readonly key: string;
}

export type Acquired = { readonly kind: 'claimed'; readonly owner: string } | { readonly kind: 'replay'; readonly response: StoredResponse };

export interface ProvisioningClaims {
  /** Takes the claim for this request, or returns the stored outcome to replay; throws the 409s. */
  acquire(ref: ClaimRef, fingerprint: string, owner: string): Promise<Acquired>;
  /** Inside a unit of work (its repositories): records the organization the claim created (the projection's org_id). */
  recordOrganization(repos: Pick<PortRepositories, 'provisioning'>, ref: ClaimRef, orgId: string): Promise<void>;
  complete(ref: ClaimRef, owner: string, response: StoredResponse): Promise<void>;
  refuse(ref: ClaimRef, owner: string, code: ProvisioningRefusalCode): Promise<void>;
  failUnknown(ref: ClaimRef, owner: string): Promise<void>;
  /** The committed claim state, for tests and operators. */
  peek(ref: ClaimRef): Promise<ProvisioningClaimSnapshot | undefined>;
}

/** Partner key ids are UUIDs and keys never contain "/", so the id is unambiguous. */
export const claimActorId = (ref: ClaimRef): string => `provisioning/${ref.partnerKeyId}/${ref.key}`;

/** The verdict was read before the lock and is stale: nothing committed, read it again. */
class StaleVerdict extends Error {}

export const outcomeUnknownError = (): AppError =>
  new AppError(
    'IDEMPOTENCY_OUTCOME_UNKNOWN',
    'The outcome of the original request with this Idempotency-Key is unknown: it may have created the customer. Do not retry blindly; reconcile first.',
  );

type ClaimRepos = Pick<PortRepositories, 'provisioning'>;

export function createProvisioningClaims(deps: {
  store: Pick<Storage, 'repos' | 'writer'>;
  clock: Clock;
  registry: ActorRegistry;
  scheduler: Scheduler;
  logger: Pick<Logger, 'warn' | 'error'>;
}): ProvisioningClaims {
  const { store, clock, scheduler, logger } = deps;
  const handle: Handle = deps.registry.register(PROVISIONING_CLAIM_KIND, {
    machine: provisioningClaimMachine,
    version: MACHINE_VERSION,
    // A claim actor that cannot be restored keeps its row as evidence; requests with that key then fail loudly.
    onFailure: (failure) => logger.error({ actorId: failure.id, reason: failure.reason.code }, 'provisioning claim actor failed'),
  });

  /** Projection row of the committed step (inside its unit of work). */
  async function project(repos: ClaimRepos, ref: ClaimRef, step: Step, state: ProvisioningClaimState, extra: { statusCode?: number } = {}): Promise<void> {
    const c = step.snapshot.context;
    const actorId = claimActorId(ref);
    const existing = await repos.provisioning.claimByActor(actorId);
    await repos.provisioning.upsertClaim({
      partnerKeyId: ref.partnerKeyId,
      key: ref.key,
      actorId: actorId,
      fingerprint: Buffer.from(c.fingerprint ?? '', 'hex'),
      state,
      statusCode: extra.statusCode ?? null,
      orgId: state === 'in_progress' ? null : (existing?.orgId ?? null),
      createdAt: c.createdAt ?? clock.now(),
      expiresAt: c.expiresAt ?? clock.now(),
      updatedAt: clock.now(),
    });
  }

  async function scheduleTimers(repos: TimerRepos, actorId: string, step: Step): Promise<void> {
    for (const fact of step.emitted) {
      if (fact.type !== 'claim.scheduled') continue;
      await scheduler.schedule(repos, { kind: CLAIM_LEASE_TIMER, targetId: actorId, dueAt: fact.leaseExpiresAt });
      await scheduler.schedule(repos, { kind: CLAIM_EXPIRY_TIMER, targetId: actorId, dueAt: fact.expiresAt });
    }
  }

  /**
   * OWNER_LOST means the process holding the claim died. If it had already created the customer, nobody will
   * finish its onboarding run now: record it failed ('onboarding_interrupted'), as a living owner does on
   * failure (provisioning.service markRunFailed), in the unit that makes the claim indeterminate. Otherwise
   * GET /organizations/:orgId would report onboarding 'running' forever.
   */
  async function abandonOnboarding(repos: ClaimRepos, actorId: string): Promise<void> {
    const orgId = (await repos.provisioning.claimByActor(actorId))?.orgId;
    const run = orgId ? await repos.provisioning.latestOnboardingRun(orgId) : undefined;
    if (run === undefined || (run.status !== 'running' && run.status !== 'pending')) return;
    await repos.provisioning.updateOnboardingRun({ id: run.id, status: 'failed', steps: run.steps, error: 'onboarding_interrupted', updatedAt: clock.now() });
  }

  /** Effects of CLAIM: only when this request's CLAIM is what moved the actor (checked before anything is written). */
  const claimEffects = (ref: ClaimRef, owner: string) => async (step: Step, tx: StepUnit) => {
    if (!step.changed || step.snapshot.context.owner !== owner || !step.snapshot.matches('inProgress')) throw new StaleVerdict();
    await project(tx.repos, ref, step, 'in_progress');
    await scheduleTimers(tx.repos, claimActorId(ref), step);
  };

  /** Effects of reaching 'expired' (TICK): the projection goes; the snapshot row is swept after commit. */
  async function expireEffects(repos: ClaimRepos & TimerRepos, actorId: string, step: Step): Promise<void> {
    if (!step.changed || !step.snapshot.matches('expired')) return;
    await repos.provisioning.deleteClaim(actorId);
    await scheduler.cancel(repos, CLAIM_LEASE_TIMER, actorId);
    await scheduler.cancel(repos, CLAIM_EXPIRY_TIMER, actorId);
  }

  /** Deletes the snapshot row of an expired claim, unless a request re-claimed the key meanwhile. */
  async function sweepSnapshot(actorId: string): Promise<void> {
    await store.writer.submit(async (tx) => {
      const row = await tx.repos.snapshots.get(actorId);
      if (row === undefined || row.machine !== PROVISIONING_CLAIM_KIND) return;
      const value = (JSON.parse(row.snapshot) as { value?: unknown }).value;
      if (value === 'expired') await tx.repos.snapshots.remove(actorId, PROVISIONING_CLAIM_KIND);
    });
  }

  async function expireNow(actorId: string, delivery?: TimerDelivery): Promise<void> {
    const expired = await handle.transition(actorId, { type: 'TICK', now: clock.now() }, async (step, tx) => {
      await delivery?.markFired(tx.repos);
      await expireEffects(tx.repos, actorId, step);
      return step.snapshot.matches('expired');
    });
    if (expired) await sweepSnapshot(actorId);
  }

  async function acquire(ref: ClaimRef, fingerprint: string, owner: string): Promise<Acquired> {
    const actorId = claimActorId(ref);
    const claim = { type: 'CLAIM' as const, fingerprint, owner, leaseMs: PROVISIONING_LEASE_MS };
    // Each lost race means another request moved the actor; a handful of rounds always settles.
    for (let round = 0; round < 8; round++) {
      const now = clock.now();
      const snapshot = await handle.peek(actorId);
      try {
        if (snapshot === undefined) {
          await handle.spawn(actorId, { key: actorId }, { event: { ...claim, now }, effects: claimEffects(ref, owner) });
          return { kind: 'claimed', owner };
        }
        const verdict = provisioningRequestVerdict(snapshot, { fingerprint, now });
        switch (verdict.kind) {
          case 'claim':
            await handle.transition(actorId, { ...claim, now }, claimEffects(ref, owner));
            return { kind: 'claimed', owner };
          case 'expire-then-claim':
            await expireNow(actorId);
            continue;
          case 'owner-lost':
            await handle.transition(actorId, { type: 'OWNER_LOST', now }, async (step, tx) => {
              if (!step.changed) return;
              await project(tx.repos, ref, step, 'indeterminate');
              await abandonOnboarding(tx.repos, actorId);
            });
            throw outcomeUnknownError();
          case 'outcome-unknown':
            throw outcomeUnknownError();
          case 'in-progress':
            throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'The original request with this Idempotency-Key is still running; retry the identical request.', undefined, {
              retryAfterSeconds: 2,
            });
          case 'key-reused':
            throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request body.');
          case 'replay':
            return { kind: 'replay', response: verdict.response };
        }
      } catch (error) {
        // A spawn that lost the race (CONFLICT) or a CLAIM another request beat: read the verdict again.
        if (error instanceof StaleVerdict || (error instanceof AppError && error.code === 'CONFLICT' && snapshot === undefined)) continue;
        throw error;
      }
    }
    throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'The Idempotency-Key is contended; retry the identical request.', undefined, { retryAfterSeconds: 2 });
  }

  /** Settles the claim this request holds; the lease timer is no longer needed. */
  async function settle(ref: ClaimRef, event: Parameters<Handle['transition']>[1], state: ProvisioningClaimState, statusCode?: number): Promise<void> {
    const actorId = claimActorId(ref);
    await handle.transition(actorId, event, async (step, tx) => {
      if (!step.changed) throw new AppError('INTERNAL', 'The provisioning claim was no longer held by this request.');
      await project(tx.repos, ref, step, state, { statusCode });
      await scheduler.cancel(tx.repos, CLAIM_LEASE_TIMER, actorId);
    });
  }

  scheduler.on(CLAIM_EXPIRY_TIMER, async (timer, delivery) => {
    // Already swept (and not resident): nothing left to expire.
    if ((await handle.peek(timer.targetId)) === undefined) return;
    await expireNow(timer.targetId, delivery);
  });

  scheduler.on(CLAIM_LEASE_TIMER, async (timer, delivery) => {
    if ((await handle.peek(timer.targetId)) === undefined) return;
    await handle.transition(timer.targetId, { type: 'OWNER_LOST', now: clock.now() }, async (step, tx) => {
      await delivery.markFired(tx.repos);
      if (!step.changed) return;
      const row = await tx.repos.provisioning.claimByActor(timer.targetId);
      if (row === undefined) return;
      await project(tx.repos, { partnerKeyId: row.partnerKeyId, key: row.key }, step, 'indeterminate');
      await abandonOnboarding(tx.repos, timer.targetId);
    });
  });

  return {
    acquire,
    recordOrganization: async (repos, ref, orgId) => {
      await repos.provisioning.setClaimOrganization(claimActorId(ref), orgId, clock.now());
    },
    complete: (ref, owner, response) => settle(ref, { type: 'COMPLETE', now: clock.now(), owner, response }, 'completed', response.status),
    refuse: (ref, owner, code) => settle(ref, { type: 'REFUSE', now: clock.now(), owner, code }, 'released'),
    failUnknown: (ref, owner) => settle(ref, { type: 'FAIL_UNKNOWN', now: clock.now(), owner }, 'indeterminate'),
    peek: async (ref) => handle.peek(claimActorId(ref)),
  };
}
