// Domain record of a durable timer: a deadline as a due time, at most one unfired per (kind, target) (storage/repos/timers.repo.ts).

export interface Timer {
  id: string;
  kind: string;
  targetId: string;
  dueAt: number;
  /** What the handler receives, parsed; `undefined` when the stored text no longer parses. */
  payload: unknown;
  createdAt: number;
  firedAt: number | null;
  /** The scheduler (node) running its handler, until claimExpiresAt; null until first claimed. */
  claimedBy: string | null;
  claimExpiresAt: number | null;
}

/** A timer as scheduled: never fired, never claimed yet. */
export type NewTimer = Omit<Timer, 'firedAt' | 'claimedBy' | 'claimExpiresAt'>;

/** A scheduler's claim on a batch of due timers (repos' claimDue): unclaimed or lapsed ones, in due order. */
export interface TimerClaim {
  owner: string;
  now: number;
  /** Epoch ms the claim lapses at: then another node may claim the timer again. */
  expiresAt: number;
  kinds: readonly string[];
  excludeIds: readonly string[];
  limit: number;
}
