// Pure pieces both idempotency-claim machines share: taking a claim, its lease and window tests, its scheduled effect.

/** A request taking the key: `leaseMs` bounds how long its owner may hold the claim before it counts as lost. */
export interface ClaimEvent {
  readonly type: 'CLAIM';
  readonly now: number;
  readonly fingerprint: string;
  readonly owner: string;
  readonly leaseMs: number;
}

/** Tells the runtime when to look at the claim again: when the lease falls due and when the window closes. */
export interface ClaimScheduled {
  readonly type: 'claim.scheduled';
  readonly key: string;
  readonly leaseExpiresAt: number;
  readonly expiresAt: number;
}

/** The claim fields a CLAIM sets; the window is counted from the claim's creation. */
export function claimTaken(event: ClaimEvent, windowMs: number) {
  return {
    fingerprint: event.fingerprint,
    owner: event.owner,
    createdAt: event.now,
    expiresAt: event.now + windowMs,
    leaseExpiresAt: event.now + event.leaseMs,
  };
}

export function claimScheduled(key: string, event: ClaimEvent, windowMs: number): ClaimScheduled {
  return { type: 'claim.scheduled', key, leaseExpiresAt: event.now + event.leaseMs, expiresAt: event.now + windowMs };
}

// The guards and the request verdicts ask these same questions, so they cannot disagree on a boundary instant.
export const isLeaseExpired = (claim: { readonly leaseExpiresAt: number | null }, now: number): boolean =>
  claim.leaseExpiresAt !== null && now >= claim.leaseExpiresAt;

export const isWindowElapsed = (claim: { readonly expiresAt: number | null }, now: number): boolean =>
  claim.expiresAt !== null && now >= claim.expiresAt;
