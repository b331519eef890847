// Owns when a failed webhook delivery is tried again: exponential backoff with jitter, then a final failure.
/*
 * After attempt n fails, the next waits base * 2^(n-1), capped, then "equal jitter": a uniformly random point in
 * the upper half of that window. Spreading retries keeps a receiver that comes back from being hit by every
 * queued delivery at the same instant; never waiting less than half keeps the backoff real. Defaults: 10 attempts
 * over about 8.5 hours (1 min, 2, 4, … capped at 6 h per wait).
 */

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseMs: number;
  readonly maxDelayMs: number;
  /** [0, 1); injectable so tests can pin the jitter. */
  readonly random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({ maxAttempts: 10, baseMs: 60_000, maxDelayMs: 6 * 3_600_000, random: Math.random });

/** The longest wait after attempt `attempt` fails (the jitter never exceeds it). */
export function maxRetryDelay(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.baseMs * 2 ** (attempt - 1));
}

export function retryDelay(policy: RetryPolicy, attempt: number): number {
  const window = maxRetryDelay(policy, attempt);
  return Math.round(window / 2 + policy.random() * (window / 2));
}
