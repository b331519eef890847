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
}

/** A timer as scheduled: never fired yet. */
export type NewTimer = Omit<Timer, 'firedAt'>;
