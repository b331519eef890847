// The supervisor's bounded restart policy: at most `maxRestarts` restarts of one actor within `windowMs`.
import type { Clock } from '../clock.js';

export interface RestartPolicy {
  maxRestarts: number;
  windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { maxRestarts: 3, windowMs: 60_000 };

export function createRestartTracker(policy: RestartPolicy, clock: Clock) {
  // Only actors that failed recently have an entry, so healthy resident actors cost nothing here.
  const history = new Map<string, number[]>();

  function recent(id: string, now: number): number[] {
    return (history.get(id) ?? []).filter((at) => at > now - policy.windowMs);
  }

  return {
    policy,
    /** Records one failure of `id`; `allowed` says whether a restart is still within the policy. */
    recordFailure(id: string): { allowed: boolean; restarts: number } {
      const now = clock.now();
      const restarts = recent(id, now);
      if (restarts.length >= policy.maxRestarts) {
        history.set(id, restarts);
        return { allowed: false, restarts: restarts.length };
      }
      restarts.push(now);
      history.set(id, restarts);
      return { allowed: true, restarts: restarts.length };
    },
    /** Forgets ids whose failures all left the window (called from the passivation sweep). */
    prune(): void {
      const now = clock.now();
      for (const [id, times] of history) if (times.every((at) => at <= now - policy.windowMs)) history.delete(id);
    },
  };
}

export type RestartTracker = ReturnType<typeof createRestartTracker>;
