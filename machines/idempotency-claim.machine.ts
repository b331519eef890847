// Fire idempotency claim for one key: absent, in progress, completed, expired after 24 h (spec "States and transitions", Limits).
import type { SnapshotFrom } from 'xstate';
import { createClaimMachine, isLeaseExpired, isWindowElapsed, type ClaimContext, type ClaimEmitted, type ClaimInput, type ClaimMachineEvent, type StoredResponse } from './claim.js';
import type { SpecTableRow } from './spec-row.js';

export type { StoredResponse } from './claim.js';

/** Bump when a persisted snapshot of an older version can no longer be restored as is. */
export const MACHINE_VERSION = 1;

/** Reservation window of a fire idempotency key (spec Limits), counted from the claim's creation. */
export const FIRE_CLAIM_WINDOW_MS = 24 * 60 * 60 * 1000;

export type IdempotencyClaimInput = ClaimInput;
export type IdempotencyClaimContext = ClaimContext;
/** The events a fire claim takes (the shared definition ignores the provisioning ones here). */
export type IdempotencyClaimEvent = Extract<ClaimMachineEvent, { type: 'CLAIM' | 'COMPLETE' | 'RELEASE' | 'RELEASE_ABANDONED' | 'TICK' }>;
export type IdempotencyClaimEmitted = ClaimEmitted;

/** The shared claim definition (claim.ts) for a fire key: its effects commit with the claim, so a failed owner frees the key. */
export const idempotencyClaimMachine = createClaimMachine({ id: 'idempotency-claim', windowMs: FIRE_CLAIM_WINDOW_MS, effects: 'one-transaction' });

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
