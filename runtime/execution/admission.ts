// Admission control for run entry points: the queue of accepted-but-unstarted executions is bounded in seconds.
/*
 * Issue 12 "Bounded work, always": accepting faster than the execution side completes grew the queue (and its
 * memory) without end. Every entry point that starts work asks `admit(n)` before it writes anything; past the
 * limit it is refused with 429 OVERLOADED and a Retry-After computed from the measured drain rate, and nothing
 * is started. The limit is expressed in seconds of capacity: depth <= rate x queueLimitSeconds (and never above
 * queueMaxExecutions, a memory bound), where the rate is an exponentially weighted average of executions started
 * per second, sampled only over windows in which work was waiting (an idle second says nothing about capacity).
 * Time here is the process's monotonic time, not the injected clock: capacity is a property of this machine.
 */
import { AppError } from '../errors.js';

export interface AdmissionConfig {
  /** Seconds of work the queue may hold; 0 refuses any work that would have to wait. */
  queueLimitSeconds: number;
  /** Hard cap on queued executions whatever the rate (memory bound). */
  queueMaxExecutions: number;
  /** Assumed drain rate (executions/s) until one is measured. */
  initialRatePerSecond: number;
}

export interface AdmissionStats {
  queued: number;
  ratePerSecond: number;
  /** Queued executions admitted at most now (rate x seconds, capped). */
  limit: number;
  limitSeconds: number;
  refused: number;
  /** Executions picked up since start. */
  startedTotal: number;
}

export interface Admission {
  /** Counts `n` new executions in, or throws 429 OVERLOADED (Retry-After) when they would exceed the limit. */
  admit(n: number): void;
  /** Counts executions in without a check (schedule ticks, boot recovery: refusing them would lose them). */
  enqueued(n: number): void;
  /** Admitted executions whose unit of work did not commit. */
  release(n: number): void;
  /** Executions the execution side picked up (queued -> running). */
  started(n: number): void;
  /**
   * N nodes: `total` executions are queued in the whole database, so this node's own cannot be more. Lowers a count
   * left high by work this node accepted and another node started (docs/postgresql.md "What is per process").
   */
  bound(total: number): void;
  stats(): AdmissionStats;
}

const WINDOW_MS = 1_000;
const MIN_RATE = 1;
const MAX_RETRY_AFTER_S = 60;

export function createAdmission(config: AdmissionConfig, now: () => number = () => performance.now()): Admission {
  let queued = 0;
  let refused = 0;
  let startedTotal = 0;
  let rate = Math.max(MIN_RATE, config.initialRatePerSecond);
  let windowStart = now();
  let windowStarted = 0;
  let windowBusy = false;

  function roll(): void {
    const at = now();
    const elapsed = at - windowStart;
    if (elapsed < WINDOW_MS) return;
    // Only a window with waiting work measures capacity; a sample of 0 there means the execution side is stuck.
    if (windowBusy) rate = Math.max(MIN_RATE, 0.7 * rate + 0.3 * ((windowStarted * 1_000) / elapsed));
    windowStart = at;
    windowStarted = 0;
    windowBusy = queued > 0;
  }

  const limit = (): number => Math.min(config.queueMaxExecutions, Math.floor(rate * config.queueLimitSeconds));

  return {
    admit(n) {
      roll();
      const cap = limit();
      if (n > 0 && queued + n > cap) {
        refused += 1;
        const retryAfter = Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil((queued + n - cap) / rate)));
        throw new AppError(
          'OVERLOADED',
          'The service is at capacity: work already queued would take longer than the configured limit. Retry after the time given.',
          { queuedExecutions: queued, limitSeconds: config.queueLimitSeconds },
          { retryAfterSeconds: retryAfter },
        );
      }
      queued += n;
      windowBusy ||= queued > 0;
    },
    enqueued(n) {
      queued += n;
      windowBusy ||= queued > 0;
    },
    release(n) {
      queued = Math.max(0, queued - n);
    },
    started(n) {
      roll();
      queued = Math.max(0, queued - n);
      windowStarted += n;
      startedTotal += n;
    },
    bound(total) {
      queued = Math.max(0, Math.min(queued, total));
    },
    stats: () => ({ queued, ratePerSecond: Math.round(rate), limit: limit(), limitSeconds: config.queueLimitSeconds, refused, startedTotal }),
  };
}
