// Token buckets per key and per IP; a refused request gets 429 RATE_LIMITED with Retry-After.
import type { Clock } from './clock.js';
import { AppError } from './errors.js';

export interface RateLimitConfig {
  /** Sustained requests per second allowed for one bucket. */
  ratePerSecond: number;
  /** Requests allowed in a burst above the sustained rate. */
  burst: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  constructor(private readonly config: RateLimitConfig, private readonly clock: Clock, private readonly maxBuckets = 100_000) {}

  /** Takes one token or throws 429 with the seconds until one is available. */
  take(id: string): void {
    if (this.config.ratePerSecond <= 0) return;
    const now = this.clock.now();
    let bucket = this.buckets.get(id);
    if (!bucket) {
      if (this.buckets.size >= this.maxBuckets) this.evictFull(now);
      bucket = { tokens: this.config.burst, updatedAt: now };
      this.buckets.set(id, bucket);
    }
    const elapsed = Math.max(0, now - bucket.updatedAt) / 1000;
    bucket.tokens = Math.min(this.config.burst, bucket.tokens + elapsed * this.config.ratePerSecond);
    bucket.updatedAt = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.config.ratePerSecond));
    throw new AppError('RATE_LIMITED', 'Too many requests; retry after the delay in Retry-After.', undefined, {
      retryAfterSeconds: retryAfter,
    });
  }

  /** Drops buckets that have refilled completely: forgetting them changes nothing. */
  private evictFull(now: number): void {
    for (const [id, bucket] of this.buckets) {
      const refilled = bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.config.ratePerSecond;
      if (refilled >= this.config.burst) this.buckets.delete(id);
    }
    if (this.buckets.size >= this.maxBuckets) this.buckets.clear();
  }
}
