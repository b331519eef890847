// Per-turn budgets (model steps, tokens, running wall time) and the wall-time deadline that aborts in-flight work.
import { isManualClock, type Clock } from '../clock.js';

export type BudgetKind = 'steps' | 'tokens' | 'wall_time';

export interface BudgetLimits {
  readonly maxSteps: number;
  readonly maxTokens: number;
  readonly maxWallMs: number;
}

export interface BudgetUsage {
  readonly steps: number;
  readonly tokens: number;
  /** Running time only: time parked on an approval does not count. */
  readonly ms: number;
}

export interface BudgetBreach {
  readonly budget: BudgetKind;
  readonly limit: number;
  readonly used: number;
}

/** Before a step: a budget that is used up. After a step: tokens past the limit end the turn before its calls run. */
export function budgetBreach(limits: BudgetLimits, usage: BudgetUsage, when: 'before-step' | 'after-step'): BudgetBreach | null {
  if (usage.ms >= limits.maxWallMs) return { budget: 'wall_time', limit: limits.maxWallMs, used: usage.ms };
  if (when === 'after-step') return usage.tokens > limits.maxTokens ? { budget: 'tokens', limit: limits.maxTokens, used: usage.tokens } : null;
  if (usage.steps >= limits.maxSteps) return { budget: 'steps', limit: limits.maxSteps, used: usage.steps };
  if (usage.tokens >= limits.maxTokens) return { budget: 'tokens', limit: limits.maxTokens, used: usage.tokens };
  return null;
}

export interface Deadline {
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * Aborts when the injected clock reaches `at`: a ManualClock fires on the change that crosses it (tests move
 * the clock instead of sleeping); the system clock uses one timer.
 */
export function clockDeadline(clock: Clock, at: number): Deadline {
  const controller = new AbortController();
  if (clock.now() >= at) {
    controller.abort();
    return { signal: controller.signal, dispose: () => {} };
  }
  if (isManualClock(clock)) {
    const off = clock.onChange((now) => {
      if (now >= at) {
        off();
        controller.abort();
      }
    });
    return { signal: controller.signal, dispose: off };
  }
  // setTimeout wraps delays past 2^31-1 ms to 1 ms; a longer budget re-arms when the first timer fires.
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const left = at - clock.now();
    if (left <= 0) return controller.abort();
    timer = setTimeout(arm, Math.min(left, 2 ** 31 - 1));
    timer.unref();
  };
  arm();
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}
