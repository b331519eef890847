// Partner provisioning idempotency claim for one key: completed, released, indeterminate, expired after 7 days (spec "States and transitions").
import { assertEvent, assign, emit, setup, type SnapshotFrom } from 'xstate';
import { claimScheduled, claimTaken, isLeaseExpired, isWindowElapsed, type ClaimEvent, type ClaimScheduled } from './claim-window.js';
import type { SpecTableRow } from './spec-row.js';

/** Bump when a persisted snapshot of an older version can no longer be restored as is. */
export const MACHINE_VERSION = 1;

/** Claim lifetime of a provisioning idempotency key (spec Limits), counted from the claim's creation. */
export const PROVISIONING_CLAIM_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** The spec's closed list of provisioning refusal codes (spec Errors). */
export type ProvisioningRefusalCode =
  | 'PARTNER_PLATFORM_SUSPENDED'
  | 'PROVISIONING_NOT_ENABLED'
  | 'TEMPLATE_SUSPENDED'
  | 'QUOTA_EXHAUSTED'
  | 'IDENTIFIER_TAKEN'
  | 'CLIENT_SEGMENT_INVALID'
  | 'PROVISIONING_FAILED';

export interface StoredResponse {
  readonly status: number;
  /** The replay body: owner.invitation is already null in it (spec Partner resources). */
  readonly body: unknown;
}

export interface ProvisioningClaimInput {
  /** The key as scoped by the runtime (partner key + key). */
  readonly key: string;
}

export interface ProvisioningClaimContext {
  readonly key: string;
  readonly fingerprint: string | null;
  readonly owner: string | null;
  readonly createdAt: number | null;
  readonly expiresAt: number | null;
  readonly leaseExpiresAt: number | null;
  readonly response: StoredResponse | null;
  readonly refusalCode: ProvisioningRefusalCode | null;
  readonly indeterminateReason: 'failed' | 'owner-lost' | null;
  readonly settledAt: number | null;
}

export type ProvisioningClaimEvent =
  | ClaimEvent
  | { readonly type: 'COMPLETE'; readonly now: number; readonly owner: string; readonly response: StoredResponse }
  /** A named refusal raised before the organization was created. */
  | { readonly type: 'REFUSE'; readonly now: number; readonly owner: string; readonly code: ProvisioningRefusalCode }
  /** A failure of unknown effect after execution may have begun. */
  | { readonly type: 'FAIL_UNKNOWN'; readonly now: number; readonly owner: string }
  /** Sent at boot (and when a lease falls due) for claims whose owner may be dead. */
  | { readonly type: 'OWNER_LOST'; readonly now: number }
  | { readonly type: 'TICK'; readonly now: number };

/** Effects for the runtime: store due times for the scheduler, sweep the row once expired. */
export type ProvisioningClaimEmitted =
  | ClaimScheduled
  | { readonly type: 'claim.expired'; readonly key: string };

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

export const provisioningClaimMachine = setup({
  types: {
    input: {} as ProvisioningClaimInput,
    context: {} as ProvisioningClaimContext,
    events: {} as ProvisioningClaimEvent,
    emitted: {} as ProvisioningClaimEmitted,
  },
  guards: {
    isOriginalOwner: ({ context, event }) =>
      (event.type === 'COMPLETE' || event.type === 'REFUSE' || event.type === 'FAIL_UNKNOWN') && event.owner === context.owner,
    leaseExpired: ({ context, event }) => isLeaseExpired(context, event.now),
    claimWindowElapsed: ({ context, event }) => isWindowElapsed(context, event.now),
  },
  actions: {
    takeClaim: assign(({ event }) => {
      assertEvent(event, 'CLAIM');
      return { ...EMPTY_CLAIM, ...claimTaken(event, PROVISIONING_CLAIM_WINDOW_MS) };
    }),
    announceScheduled: emit(({ context, event }) => {
      assertEvent(event, 'CLAIM');
      return claimScheduled(context.key, event, PROVISIONING_CLAIM_WINDOW_MS);
    }),
    storeResponse: assign(({ event }) => {
      assertEvent(event, 'COMPLETE');
      return { response: event.response, settledAt: event.now, leaseExpiresAt: null };
    }),
    // The expiry clock keeps running from creation: an unretried released row is swept at 7 days.
    recordRefusal: assign(({ event }) => {
      assertEvent(event, 'REFUSE');
      return { refusalCode: event.code, settledAt: event.now, leaseExpiresAt: null };
    }),
    recordIndeterminate: assign(({ event }, params: { reason: 'failed' | 'owner-lost' }) => ({
      indeterminateReason: params.reason,
      settledAt: event.now,
      leaseExpiresAt: null,
    })),
    announceExpired: emit(({ context }) => ({ type: 'claim.expired' as const, key: context.key })),
  },
}).createMachine({
  id: 'provisioning-claim',
  initial: 'absent',
  context: ({ input }) => ({ key: input.key, ...EMPTY_CLAIM }),
  states: {
    absent: {
      on: { CLAIM: { target: 'inProgress', actions: ['takeClaim', 'announceScheduled'] } },
    },
    inProgress: {
      on: {
        COMPLETE: { guard: 'isOriginalOwner', target: 'completed', actions: 'storeResponse' },
        REFUSE: { guard: 'isOriginalOwner', target: 'released', actions: 'recordRefusal' },
        FAIL_UNKNOWN: { guard: 'isOriginalOwner', target: 'indeterminate', actions: { type: 'recordIndeterminate', params: { reason: 'failed' } } },
        OWNER_LOST: { guard: 'leaseExpired', target: 'indeterminate', actions: { type: 'recordIndeterminate', params: { reason: 'owner-lost' } } },
        TICK: { guard: 'claimWindowElapsed', target: 'expired' },
      },
    },
    completed: {
      description: 'Identical repeats replay the stored outcome (invitation null).',
      on: { TICK: { guard: 'claimWindowElapsed', target: 'expired' } },
    },
    released: {
      description: 'A corrected request may reuse the key.',
      on: {
        CLAIM: { target: 'inProgress', actions: ['takeClaim', 'announceScheduled'] },
        TICK: { guard: 'claimWindowElapsed', target: 'expired' },
      },
    },
    indeterminate: {
      description: 'Every later request gets IDEMPOTENCY_OUTCOME_UNKNOWN.',
      on: { TICK: { guard: 'claimWindowElapsed', target: 'expired' } },
    },
    expired: {
      description: 'The next request runs fresh, the runtime sweeps the row.',
      entry: 'announceExpired',
      on: { CLAIM: { target: 'inProgress', actions: ['takeClaim', 'announceScheduled'] } },
    },
  },
});

export type ProvisioningClaimSnapshot = SnapshotFrom<typeof provisioningClaimMachine>;

/** What the runtime does with a provisioning request carrying this key (call with the request's time). */
export type ProvisioningRequestVerdict =
  | { readonly kind: 'claim' } // send CLAIM
  | { readonly kind: 'expire-then-claim' } // window elapsed before a TICK arrived: send TICK, then CLAIM
  | { readonly kind: 'owner-lost' } // owner's lease ran out: send OWNER_LOST, answer IDEMPOTENCY_OUTCOME_UNKNOWN
  | { readonly kind: 'in-progress' } // 409 IDEMPOTENCY_IN_PROGRESS, Retry-After: 2
  | { readonly kind: 'outcome-unknown' } // 409 IDEMPOTENCY_OUTCOME_UNKNOWN
  | { readonly kind: 'key-reused' } // 409 IDEMPOTENCY_KEY_REUSED
  | { readonly kind: 'replay'; readonly response: StoredResponse };

export function provisioningRequestVerdict(
  snapshot: ProvisioningClaimSnapshot,
  request: { readonly fingerprint: string; readonly now: number },
): ProvisioningRequestVerdict {
  const c = snapshot.context;
  if (snapshot.matches('absent') || snapshot.matches('expired')) return { kind: 'claim' };
  if (isWindowElapsed(c, request.now)) return { kind: 'expire-then-claim' };
  if (snapshot.matches('released')) return { kind: 'claim' };
  if (snapshot.matches('indeterminate')) return { kind: 'outcome-unknown' };
  // Unlike a fire, provisioning effects (organization, invitation) are not one transaction: a dead owner's outcome is unknown.
  if (snapshot.matches('inProgress') && isLeaseExpired(c, request.now)) return { kind: 'owner-lost' };
  if (c.fingerprint !== request.fingerprint) return { kind: 'key-reused' };
  if (snapshot.matches('completed') && c.response !== null) return { kind: 'replay', response: c.response };
  return { kind: 'in-progress' };
}

const SEVEN_DAYS = 'Provisioning claim | 7 days elapse | ';
const NAMED_REFUSAL = 'Provisioning claim | named refusal before organization creation | ';
const UNKNOWN_FAILURE = 'Provisioning claim | unknown failure after execution may have begun | ';
const fresh = 'a provisioning request with an unclaimed key takes the claim, as the fire row "first fire request with key" does';

export const SPEC_ROWS: readonly SpecTableRow[] = [
  { source: 'absent', event: 'CLAIM', target: 'inProgress', extension: fresh },
  {
    source: 'inProgress', event: 'COMPLETE', guard: 'isOriginalOwner', target: 'completed',
    extension: 'the original completes; repeats replay it, as the fire row "original completes" does',
  },
  { source: 'inProgress', event: 'REFUSE', guard: 'isOriginalOwner', target: 'released', specRow: NAMED_REFUSAL },
  { source: 'inProgress', event: 'FAIL_UNKNOWN', guard: 'isOriginalOwner', target: 'indeterminate', specRow: UNKNOWN_FAILURE },
  {
    source: 'inProgress', event: 'OWNER_LOST', guard: 'leaseExpired', target: 'indeterminate',
    extension: 'lease expiry of a dead owner (released at boot for fire claims): provisioning may have begun, so the claim is retained as indeterminate',
  },
  { source: 'inProgress', event: 'TICK', guard: 'claimWindowElapsed', target: 'expired', specRow: SEVEN_DAYS },
  { source: 'completed', event: 'TICK', guard: 'claimWindowElapsed', target: 'expired', specRow: SEVEN_DAYS },
  { source: 'released', event: 'CLAIM', target: 'inProgress', extension: 'the named-refusal row\'s effect "corrected request may reuse the key"' },
  { source: 'released', event: 'TICK', guard: 'claimWindowElapsed', target: 'expired', specRow: SEVEN_DAYS },
  { source: 'indeterminate', event: 'TICK', guard: 'claimWindowElapsed', target: 'expired', specRow: SEVEN_DAYS },
  { source: 'expired', event: 'CLAIM', target: 'inProgress', extension: 'the 7-day row\'s effect "next request with the key runs as fresh"' },
];
