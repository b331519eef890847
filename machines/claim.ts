// One idempotency-claim definition for fire and provisioning keys: shared states and steps, parameterized where the spec differs.
/*
 * Both claims go absent -> inProgress -> completed -> expired with the same CLAIM, COMPLETE and TICK steps. They
 * differ in one fact (`effects`): a fire's effects commit with its claim in one transaction, so an owner that fails
 * or dies committed nothing and the key is free again (RELEASE, RELEASE_ABANDONED -> absent); provisioning's do not
 * (organization, invitation), so only a named refusal before any effect frees the key (REFUSE -> released) and an
 * unknown failure or a lost owner leaves it indeterminate (FAIL_UNKNOWN, OWNER_LOST).
 */
import { assertEvent, assign, emit, setup } from 'xstate';

export interface StoredResponse {
  readonly status: number;
  /** The replay body (for provisioning, owner.invitation is already null in it: spec Partner resources). */
  readonly body: unknown;
}

/** The spec's closed list of provisioning refusal codes (spec Errors). */
export type ProvisioningRefusalCode =
  | 'PARTNER_PLATFORM_SUSPENDED'
  | 'PROVISIONING_NOT_ENABLED'
  | 'TEMPLATE_SUSPENDED'
  | 'QUOTA_EXHAUSTED'
  | 'IDENTIFIER_TAKEN'
  | 'CLIENT_SEGMENT_INVALID'
  | 'PROVISIONING_FAILED';

export interface ClaimInput {
  /** The key as scoped by the runtime (organization + key, or partner key + key). */
  readonly key: string;
}

export interface ClaimContext {
  readonly key: string;
  /** Hash of the request (for a fire: target, input and callerCredentials, values included; spec Errors). */
  readonly fingerprint: string | null;
  readonly owner: string | null;
  readonly createdAt: number | null;
  readonly expiresAt: number | null;
  readonly leaseExpiresAt: number | null;
  readonly response: StoredResponse | null;
  readonly refusalCode: ProvisioningRefusalCode | null;
  readonly indeterminateReason: 'failed' | 'owner-lost' | null;
  /** When the owner completed, was refused or failed. */
  readonly settledAt: number | null;
}

/** A request taking the key: `leaseMs` bounds how long its owner may hold the claim before it counts as lost. */
export interface ClaimEvent {
  readonly type: 'CLAIM';
  readonly now: number;
  readonly fingerprint: string;
  readonly owner: string;
  readonly leaseMs: number;
}

export type ClaimMachineEvent =
  | ClaimEvent
  | { readonly type: 'COMPLETE'; readonly now: number; readonly owner: string; readonly response: StoredResponse }
  | { readonly type: 'TICK'; readonly now: number }
  /** Fire: the original failed before completing and committed no effect. */
  | { readonly type: 'RELEASE'; readonly now: number; readonly owner: string }
  /** Fire: sent when a lease falls due; the dead owner committed nothing. */
  | { readonly type: 'RELEASE_ABANDONED'; readonly now: number }
  /** Provisioning: a named refusal raised before the organization was created. */
  | { readonly type: 'REFUSE'; readonly now: number; readonly owner: string; readonly code: ProvisioningRefusalCode }
  /** Provisioning: a failure of unknown effect after execution may have begun. */
  | { readonly type: 'FAIL_UNKNOWN'; readonly now: number; readonly owner: string }
  /** Provisioning: sent when a lease falls due; the dead owner may have created the organization. */
  | { readonly type: 'OWNER_LOST'; readonly now: number };

/** Tells the runtime when to look at the claim again: when the lease falls due and when the window closes. */
export interface ClaimScheduled {
  readonly type: 'claim.scheduled';
  readonly key: string;
  readonly leaseExpiresAt: number;
  readonly expiresAt: number;
}

/** Effects for the runtime: store due times, note a release, sweep the row once expired. */
export type ClaimEmitted =
  | ClaimScheduled
  | { readonly type: 'claim.released'; readonly key: string; readonly reason: 'failed-without-effect' | 'lease-expired' }
  | { readonly type: 'claim.expired'; readonly key: string };

// The guards and the request verdicts ask these same questions, so they cannot disagree on a boundary instant.
export const isLeaseExpired = (claim: { readonly leaseExpiresAt: number | null }, now: number): boolean =>
  claim.leaseExpiresAt !== null && now >= claim.leaseExpiresAt;

export const isWindowElapsed = (claim: { readonly expiresAt: number | null }, now: number): boolean =>
  claim.expiresAt !== null && now >= claim.expiresAt;

const EMPTY_CLAIM = {
  fingerprint: null,
  owner: null,
  createdAt: null,
  expiresAt: null,
  leaseExpiresAt: null,
  response: null,
  refusalCode: null,
  indeterminateReason: null,
  settledAt: null,
} as const;

const settled = (now: number) => ({ settledAt: now, leaseExpiresAt: null });

const claimSetup = setup({
  types: {
    input: {} as ClaimInput,
    context: {} as ClaimContext,
    events: {} as ClaimMachineEvent,
    emitted: {} as ClaimEmitted,
  },
  guards: {
    // "original completes": only the request that holds the claim may settle it; a slow owner whose lease was
    // taken over is refused and must roll back its own transaction.
    isOriginalOwner: ({ context, event }) => 'owner' in event && event.type !== 'CLAIM' && event.owner === context.owner,
    leaseExpired: ({ context, event }) => isLeaseExpired(context, event.now),
    claimWindowElapsed: ({ context, event }) => isWindowElapsed(context, event.now),
  },
  actions: {
    // The window is counted from the claim's creation.
    takeClaim: assign(({ event }, params: { windowMs: number }) => {
      assertEvent(event, 'CLAIM');
      const { fingerprint, owner, now, leaseMs } = event;
      return { ...EMPTY_CLAIM, fingerprint, owner, createdAt: now, expiresAt: now + params.windowMs, leaseExpiresAt: now + leaseMs };
    }),
    announceScheduled: emit(({ context, event }, params: { windowMs: number }) => {
      assertEvent(event, 'CLAIM');
      return { type: 'claim.scheduled' as const, key: context.key, leaseExpiresAt: event.now + event.leaseMs, expiresAt: event.now + params.windowMs };
    }),
    storeResponse: assign(({ event }) => {
      assertEvent(event, 'COMPLETE');
      return { response: event.response, ...settled(event.now) };
    }),
    clearClaim: assign(() => EMPTY_CLAIM),
    announceReleased: emit(({ context }, params: { reason: 'failed-without-effect' | 'lease-expired' }) => ({
      type: 'claim.released' as const,
      key: context.key,
      reason: params.reason,
    })),
    // The expiry clock keeps running from creation: an unretried released row is swept at the window's end.
    recordRefusal: assign(({ event }) => {
      assertEvent(event, 'REFUSE');
      return { refusalCode: event.code, ...settled(event.now) };
    }),
    recordIndeterminate: assign(({ event }, params: { reason: 'failed' | 'owner-lost' }) => ({ indeterminateReason: params.reason, ...settled(event.now) })),
    announceExpired: emit(({ context }) => ({ type: 'claim.expired' as const, key: context.key })),
  },
});

export interface ClaimVariant<Effects extends 'one-transaction' | 'may-have-begun'> {
  readonly id: string;
  /** Claim lifetime (spec Limits), counted from creation. */
  readonly windowMs: number;
  /** 'one-transaction': the effects commit with the claim (fire); 'may-have-begun': they do not (provisioning). */
  readonly effects: Effects;
}

/** The states and steps both claims share; inProgress exits and extra states are added per variant. */
function shared(windowMs: number) {
  const claim = { target: 'inProgress', actions: [{ type: 'takeClaim', params: { windowMs } }, { type: 'announceScheduled', params: { windowMs } }] } as const;
  const tick = { guard: 'claimWindowElapsed', target: 'expired' } as const;
  return {
    claim,
    tick,
    complete: { guard: 'isOriginalOwner', target: 'completed', actions: 'storeResponse' } as const,
    absent: { on: { CLAIM: claim } },
    inProgress: { description: 'Repeats get IDEMPOTENCY_IN_PROGRESS (Retry-After: 2) while the lease holds.' },
    completed: { description: 'Identical repeats replay the stored response (Idempotency-Replayed: true).', on: { TICK: tick } },
    expired: { description: 'The key is reusable at once; the runtime sweeps the row.', entry: 'announceExpired', on: { CLAIM: claim } },
  } as const;
}

const context = ({ input }: { input: ClaimInput }): ClaimContext => ({ key: input.key, ...EMPTY_CLAIM });

function oneTransaction(variant: ClaimVariant<'one-transaction'>) {
  const s = shared(variant.windowMs);
  return claimSetup.createMachine({
    id: variant.id,
    initial: 'absent',
    context,
    states: {
      absent: s.absent,
      inProgress: {
        ...s.inProgress,
        on: {
          COMPLETE: s.complete,
          RELEASE: { guard: 'isOriginalOwner', target: 'absent', actions: [{ type: 'announceReleased', params: { reason: 'failed-without-effect' } }, 'clearClaim'] },
          RELEASE_ABANDONED: { guard: 'leaseExpired', target: 'absent', actions: [{ type: 'announceReleased', params: { reason: 'lease-expired' } }, 'clearClaim'] },
          TICK: s.tick,
        },
      },
      completed: s.completed,
      expired: s.expired,
    },
  });
}

function mayHaveBegun(variant: ClaimVariant<'may-have-begun'>) {
  const s = shared(variant.windowMs);
  return claimSetup.createMachine({
    id: variant.id,
    initial: 'absent',
    context,
    states: {
      absent: s.absent,
      inProgress: {
        ...s.inProgress,
        on: {
          COMPLETE: s.complete,
          REFUSE: { guard: 'isOriginalOwner', target: 'released', actions: 'recordRefusal' },
          FAIL_UNKNOWN: { guard: 'isOriginalOwner', target: 'indeterminate', actions: { type: 'recordIndeterminate', params: { reason: 'failed' } } },
          OWNER_LOST: { guard: 'leaseExpired', target: 'indeterminate', actions: { type: 'recordIndeterminate', params: { reason: 'owner-lost' } } },
          TICK: s.tick,
        },
      },
      completed: s.completed,
      released: { description: 'A corrected request may reuse the key.', on: { CLAIM: s.claim, TICK: s.tick } },
      indeterminate: { description: 'Every later request gets IDEMPOTENCY_OUTCOME_UNKNOWN.', on: { TICK: s.tick } },
      expired: s.expired,
    },
  });
}

/** The claim machine of one variant: the same definition, differing only where `effects` says. */
export function createClaimMachine(variant: ClaimVariant<'one-transaction'>): ReturnType<typeof oneTransaction>;
export function createClaimMachine(variant: ClaimVariant<'may-have-begun'>): ReturnType<typeof mayHaveBegun>;
export function createClaimMachine(variant: ClaimVariant<'one-transaction'> | ClaimVariant<'may-have-begun'>) {
  return variant.effects === 'one-transaction' ? oneTransaction(variant as ClaimVariant<'one-transaction'>) : mayHaveBegun(variant as ClaimVariant<'may-have-begun'>);
}
