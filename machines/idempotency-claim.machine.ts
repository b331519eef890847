// Fire idempotency claim for one key: absent, in progress, completed, expired after 24 h (spec "States and transitions", Limits).
import { assertEvent, assign, emit, setup, type SnapshotFrom } from 'xstate';
import { claimScheduled, claimTaken, isLeaseExpired, isWindowElapsed, type ClaimEvent, type ClaimScheduled } from './claim-window.js';
import type { SpecTableRow } from './spec-row.js';

/** Bump when a persisted snapshot of an older version can no longer be restored as is. */
export const MACHINE_VERSION = 1;

/** Reservation window of a fire idempotency key (spec Limits), counted from the claim's creation. */
export const FIRE_CLAIM_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface IdempotencyClaimInput {
  /** The key as scoped by the runtime (organization + key). */
  readonly key: string;
}

export interface IdempotencyClaimContext {
  readonly key: string;
  /** Hash of target, input and callerCredentials (credential values included; spec Errors). */
  readonly fingerprint: string | null;
  readonly owner: string | null;
  readonly createdAt: number | null;
  readonly expiresAt: number | null;
  readonly leaseExpiresAt: number | null;
  readonly response: StoredResponse | null;
  readonly completedAt: number | null;
}

export type IdempotencyClaimEvent =
  | ClaimEvent
  | { readonly type: 'COMPLETE'; readonly now: number; readonly owner: string; readonly response: StoredResponse }
  /** The original failed before completing and committed no effect: the key is free again. */
  | { readonly type: 'RELEASE'; readonly now: number; readonly owner: string }
  /** Sent at boot (and when a lease falls due) for claims whose owner may be dead. */
  | { readonly type: 'RELEASE_ABANDONED'; readonly now: number }
  | { readonly type: 'TICK'; readonly now: number };

/** Effects for the runtime: store due times for the scheduler, sweep the row once expired. */
export type IdempotencyClaimEmitted =
  | ClaimScheduled
  | { readonly type: 'claim.released'; readonly key: string; readonly reason: 'failed-without-effect' | 'lease-expired' }
  | { readonly type: 'claim.expired'; readonly key: string };

const EMPTY_CLAIM = {
  fingerprint: null,
  owner: null,
  createdAt: null,
  expiresAt: null,
  leaseExpiresAt: null,
  response: null,
  completedAt: null,
} as const;

export const idempotencyClaimMachine = setup({
  types: {
    input: {} as IdempotencyClaimInput,
    context: {} as IdempotencyClaimContext,
    events: {} as IdempotencyClaimEvent,
    emitted: {} as IdempotencyClaimEmitted,
  },
  guards: {
    // "original completes": only the request that holds the claim may settle it; a slow owner
    // whose lease was taken over is refused and must roll back its own transaction.
    isOriginalOwner: ({ context, event }) => (event.type === 'COMPLETE' || event.type === 'RELEASE') && event.owner === context.owner,
    leaseExpired: ({ context, event }) => isLeaseExpired(context, event.now),
    claimWindowElapsed: ({ context, event }) => isWindowElapsed(context, event.now),
  },
  actions: {
    takeClaim: assign(({ event }) => (event.type === 'CLAIM' ? { ...EMPTY_CLAIM, ...claimTaken(event, FIRE_CLAIM_WINDOW_MS) } : {})),
    announceScheduled: emit(({ context, event }) => {
      assertEvent(event, 'CLAIM');
      return claimScheduled(context.key, event, FIRE_CLAIM_WINDOW_MS);
    }),
    storeResponse: assign(({ event }) => (event.type === 'COMPLETE' ? { response: event.response, completedAt: event.now, leaseExpiresAt: null } : {})),
    clearClaim: assign(() => EMPTY_CLAIM),
    announceReleased: emit(({ context }, params: { reason: 'failed-without-effect' | 'lease-expired' }) => ({
      type: 'claim.released' as const,
      key: context.key,
      reason: params.reason,
    })),
    announceExpired: emit(({ context }) => ({ type: 'claim.expired' as const, key: context.key })),
  },
}).createMachine({
  id: 'idempotency-claim',
  initial: 'absent',
  context: ({ input }) => ({ key: input.key, ...EMPTY_CLAIM }),
  states: {
    absent: {
      on: { CLAIM: { target: 'inProgress', actions: ['takeClaim', 'announceScheduled'] } },
    },
    inProgress: {
      description: 'Repeats get IDEMPOTENCY_IN_PROGRESS (Retry-After: 2) while the lease holds.',
      on: {
        COMPLETE: { guard: 'isOriginalOwner', target: 'completed', actions: 'storeResponse' },
        RELEASE: {
          guard: 'isOriginalOwner',
          target: 'absent',
          actions: [{ type: 'announceReleased', params: { reason: 'failed-without-effect' } }, 'clearClaim'],
        },
        RELEASE_ABANDONED: {
          guard: 'leaseExpired',
          target: 'absent',
          actions: [{ type: 'announceReleased', params: { reason: 'lease-expired' } }, 'clearClaim'],
        },
        TICK: { guard: 'claimWindowElapsed', target: 'expired' },
      },
    },
    completed: {
      description: 'Identical repeats replay the stored response with Idempotency-Replayed: true.',
      on: { TICK: { guard: 'claimWindowElapsed', target: 'expired' } },
    },
    expired: {
      description: 'Key reusable immediately, the runtime sweeps the row.',
      entry: 'announceExpired',
      on: { CLAIM: { target: 'inProgress', actions: ['takeClaim', 'announceScheduled'] } },
    },
  },
});

export type IdempotencyClaimSnapshot = SnapshotFrom<typeof idempotencyClaimMachine>;

/** What the runtime does with a fire request carrying this key (call with the request's time). */
export type FireRequestVerdict =
  | { readonly kind: 'claim' } // send CLAIM
  | { readonly kind: 'expire-then-claim' } // window elapsed before a TICK arrived: send TICK, then CLAIM
  | { readonly kind: 'release-then-claim' } // owner's lease ran out: send RELEASE_ABANDONED, then CLAIM
  | { readonly kind: 'in-progress' } // 409 IDEMPOTENCY_IN_PROGRESS, Retry-After: 2
  | { readonly kind: 'key-reused' } // 409 IDEMPOTENCY_KEY_REUSED
  | { readonly kind: 'replay'; readonly response: StoredResponse }; // original status and body, Idempotency-Replayed: true

export function fireRequestVerdict(snapshot: IdempotencyClaimSnapshot, request: { readonly fingerprint: string; readonly now: number }): FireRequestVerdict {
  const c = snapshot.context;
  if (snapshot.matches('absent') || snapshot.matches('expired')) return { kind: 'claim' };
  if (isWindowElapsed(c, request.now)) return { kind: 'expire-then-claim' };
  // A claim whose owner's lease ran out committed nothing, so it counts as free for any request.
  if (snapshot.matches('inProgress') && isLeaseExpired(c, request.now)) return { kind: 'release-then-claim' };
  if (c.fingerprint !== request.fingerprint) return { kind: 'key-reused' };
  if (snapshot.matches('completed') && c.response !== null) return { kind: 'replay', response: c.response };
  return { kind: 'in-progress' };
}

const FIRST_FIRE = 'Idempotency claim absent | first fire request with key | ';
const ORIGINAL_COMPLETES = 'Idempotency claim in progress | original completes | ';
const WINDOW_ELAPSED = 'Idempotency claim (fire) | 24 hours elapse | ';

export const SPEC_ROWS: readonly SpecTableRow[] = [
  { source: 'absent', event: 'CLAIM', target: 'inProgress', specRow: FIRST_FIRE },
  { source: 'inProgress', event: 'COMPLETE', guard: 'isOriginalOwner', target: 'completed', specRow: ORIGINAL_COMPLETES },
  {
    source: 'inProgress', event: 'RELEASE', guard: 'isOriginalOwner', target: 'absent',
    extension: 'the original failed before completing and committed no effect (effects commit with COMPLETE), so a retry must be able to run',
  },
  {
    source: 'inProgress', event: 'RELEASE_ABANDONED', guard: 'leaseExpired', target: 'absent',
    extension: 'lease takeover: in-progress claims with an expired lease are released at boot (and when the lease falls due); a dead owner committed nothing',
  },
  { source: 'inProgress', event: 'TICK', guard: 'claimWindowElapsed', target: 'expired', specRow: WINDOW_ELAPSED },
  { source: 'completed', event: 'TICK', guard: 'claimWindowElapsed', target: 'expired', specRow: WINDOW_ELAPSED },
  { source: 'expired', event: 'CLAIM', target: 'inProgress', extension: 'the 24-hour row\'s effect "key reusable immediately": an expired claim accepts a new first request' },
];
