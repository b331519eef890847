// Partner provisioning idempotency claim for one key: completed, released, indeterminate, expired after 7 days (spec "States and transitions").
import type { SnapshotFrom } from 'xstate';
import { createClaimMachine, isLeaseExpired, isWindowElapsed, type ClaimContext, type ClaimEmitted, type ClaimInput, type ClaimMachineEvent, type StoredResponse } from './claim.js';
import type { SpecTableRow } from './spec-row.js';

export type { ProvisioningRefusalCode, StoredResponse } from './claim.js';

/** Bump when a persisted snapshot of an older version can no longer be restored as is. */
export const MACHINE_VERSION = 1;

/** Claim lifetime of a provisioning idempotency key (spec Limits), counted from the claim's creation. */
export const PROVISIONING_CLAIM_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export type ProvisioningClaimInput = ClaimInput;
export type ProvisioningClaimContext = ClaimContext;
/** The events a provisioning claim takes (the shared definition ignores the fire ones here). */
export type ProvisioningClaimEvent = Extract<ClaimMachineEvent, { type: 'CLAIM' | 'COMPLETE' | 'REFUSE' | 'FAIL_UNKNOWN' | 'OWNER_LOST' | 'TICK' }>;
export type ProvisioningClaimEmitted = ClaimEmitted;

/**
 * The shared claim definition (claim.ts) for a partner provisioning key: creating the organization and sending the
 * invitation are not one transaction, so a failure of unknown effect or a lost owner leaves the claim indeterminate.
 */
export const provisioningClaimMachine = createClaimMachine({ id: 'provisioning-claim', windowMs: PROVISIONING_CLAIM_WINDOW_MS, effects: 'may-have-begun' });

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
