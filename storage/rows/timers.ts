// One row mapping for durable timers, both drivers (storage/repos/ and storage/postgres/repos/ timers.repo.ts).
import type { RowCodec } from '../row-codec.js';
import type { NewTimer, Timer } from '../records/timers.js';

export interface TimerRow {
  id: string;
  kind: string;
  target_id: string;
  due_at: number;
  /** JSON: text on SQLite, parsed jsonb on PostgreSQL. */
  payload: unknown;
  created_at: number;
  fired_at: number | null;
  claimed_by: string | null;
  claim_expires_at: number | null;
}

export function timerRows(codec: RowCodec) {
  // On the scheduler's path (every due batch, every schedule and cancel): a payload is small, usually `{}`.
  const fromRow = (r: TimerRow): Timer => ({
    id: r.id,
    kind: r.kind,
    targetId: r.target_id,
    dueAt: r.due_at,
    payload: codec.json(r.payload),
    createdAt: r.created_at,
    firedAt: r.fired_at,
    claimedBy: r.claimed_by,
    claimExpiresAt: r.claim_expires_at,
  });

  /** A new timer is never fired nor claimed, so fired_at and the claim are not written. */
  const toRow = (t: NewTimer) => ({
    id: t.id,
    kind: t.kind,
    target_id: t.targetId,
    due_at: t.dueAt,
    payload: codec.toJson(t.payload),
    created_at: t.createdAt,
  });

  return { fromRow, toRow };
}

/** UPDATE … RETURNING answers in no particular order: claimed timers are handed out in due order. */
export const byDueAt = (a: Timer, b: Timer): number => a.dueAt - b.dueAt;
