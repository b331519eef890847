// The one source of time: injectable so tests move it instead of sleeping.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; listeners let the scheduler react to jumps. */
export class ManualClock implements Clock {
  private listeners = new Set<(now: number) => void>();
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
    for (const listener of this.listeners) listener(ms);
  }
  advance(ms: number): void {
    this.set(this.current + ms);
  }
  onChange(listener: (now: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function isManualClock(clock: Clock): clock is ManualClock {
  return clock instanceof ManualClock;
}

export const toIso = (ms: number): string => new Date(ms).toISOString();
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
