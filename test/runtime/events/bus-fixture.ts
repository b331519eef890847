// Test fixture: a store (the test storage mode's engine) with seeded sessions, a bus over it, manual delta timers, and a recording subscriber.
import { ManualClock } from '../../../runtime/clock.js';
import type { DeltaTimers } from '../../../runtime/events/delta-coalescer.js';
import { createSessionEventBus, type SessionEventBus, type SessionEventBusOptions } from '../../../runtime/events/event-bus.js';
import type { SessionEventEnvelope } from '../../../runtime/events/session-event.js';
import type { Storage } from '../../../storage/port/storage.js';
import { openTestStore, type TestStore } from '../../helpers/test-store.js';
import { seedSessions } from './seed-sessions.js';

/** Delta window timers that fire only when the test says so. */
export class ManualTimers implements DeltaTimers {
  private next = 1;
  readonly armed = new Map<number, { run: () => void; ms: number }>();
  set(run: () => void, ms: number): unknown {
    const id = this.next++;
    this.armed.set(id, { run, ms });
    return id;
  }
  clear(handle: unknown): void {
    this.armed.delete(handle as number);
  }
  fireAll(): void {
    const due = [...this.armed.values()];
    this.armed.clear();
    for (const timer of due) timer.run();
  }
}

export interface BusFixture {
  store: Storage;
  db: TestStore;
  bus: SessionEventBus;
  clock: ManualClock;
  timers: ManualTimers;
  sessions: string[];
  errors: unknown[];
}

/** A fresh store with `sessionCount` sessions and a bus over it; the store closes at `t`'s teardown. */
export async function busFixture(t: { teardown(fn: () => unknown): void }, sessionCount = 2, options: Partial<SessionEventBusOptions> = {}): Promise<BusFixture> {
  return busOver(await openTestStore(t), sessionCount, options);
}

/** `sessionCount` new sessions in `db` and a new bus over it: many runs of a property share one database. */
export async function busOver(db: TestStore, sessionCount = 2, options: Partial<SessionEventBusOptions> = {}): Promise<BusFixture> {
  const store = db.store;
  const sessions = await seedSessions(db.sql, sessionCount);
  const clock = new ManualClock(Date.UTC(2026, 3, 1, 9));
  const timers = new ManualTimers();
  const errors: unknown[] = [];
  const bus = createSessionEventBus({
    repo: store.repos.sessionEvents,
    writer: store.writer,
    clock,
    timers,
    onError: (error) => errors.push(error),
    ...options,
  });
  return { store, db, bus, clock, timers, sessions, errors };
}

/** Resolves after the event loop's next check phase: one fan-out turn has run. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Lets every queued fan-out turn run, and every catch-up read of the table answer (at once on SQLite, a round trip
 * on PostgreSQL); bounded, so a bug shows as a failure, not a hang.
 */
export async function settle(bus: SessionEventBus, maxTurns = 10_000): Promise<void> {
  const busy = () => bus.stats().queued > 0 || bus.stats().reading > 0;
  for (let i = 0; i < maxTurns && busy(); i++) await nextTurn();
  await nextTurn();
}

export function recorder(): { events: SessionEventEnvelope[]; batches: number; listener: (batch: readonly SessionEventEnvelope[]) => void } {
  const state = {
    events: [] as SessionEventEnvelope[],
    batches: 0,
    listener: (batch: readonly SessionEventEnvelope[]) => {
      state.batches += 1;
      state.events.push(...batch);
    },
  };
  return state;
}

export const seqs = (events: readonly SessionEventEnvelope[]): number[] => events.map((e) => e.seq);
export const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
