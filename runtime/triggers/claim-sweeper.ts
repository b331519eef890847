// Sweeps expired fire idempotency claims with ONE durable timer for all of them, armed at the soonest expiry.
/*
 * A timer row per claim made every keyed fire write one more row and left millions of pending timers after a
 * day of traffic (issue 12). Expiry is decided at request time anyway (fireRequestVerdict: an expired claim is
 * taken over at once), so the sweep only reclaims space: one timer (kind CLAIM_SWEEP_TIMER, one target) wakes at
 * the earliest stored expiry, deletes a bounded batch through the expiry index, and re-arms itself. Claims are
 * created with expiry = now + 24 h, so a new claim never expires before the armed sweep: the accept path only
 * arms the timer when none is pending. Once a unit that saw (or armed) the timer has committed, the sweeper knows
 * it is armed until it fires, and keyed fires stop looking (no read per fire); the firing forgets it, so the
 * next keyed fire reads again. Learned after commit only: a unit that armed it may still roll back.
 */
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
import type { Clock } from '../clock.js';
import type { Scheduler, TimerRepos } from '../scheduler/index.js';

export const CLAIM_SWEEP_TIMER = 'fire-claim-sweep';
const TARGET = 'idempotency_claims';
/** Rows deleted per sweep unit: keeps one unit of work short; the sweep re-arms at once when more are due. */
export const SWEEP_BATCH = 5_000;
/** Sweeps are at least this far apart under steady load (expiries then arrive every millisecond). */
export const SWEEP_MIN_INTERVAL_MS = 60_000;

export interface ClaimSweeper {
  /** Inside the unit of work (`tx`) that stores a claim expiring at `expiresAt`: arms the sweep if none is armed. */
  armFor(tx: UnitContext<TimerRepos>, expiresAt: number): Promise<void>;
  /** Boot: arms the sweep at the soonest stored expiry (no-op when nothing is stored or a sweep is pending). */
  start(): Promise<void>;
}

export function createClaimSweeper(deps: { clock: Clock; writer: Storage['writer']; scheduler: Scheduler }): ClaimSweeper {
  const { clock, writer, scheduler } = deps;
  // Read inside the unit, not remembered: a unit that armed the timer may still roll back, and then nothing is armed.
  const armed = async (repos: TimerRepos): Promise<boolean> => (await scheduler.pendingDueAt(CLAIM_SWEEP_TIMER, TARGET, repos)) !== null;
  const arm = async (repos: TimerRepos, dueAt: number): Promise<void> => void (await scheduler.schedule(repos, { kind: CLAIM_SWEEP_TIMER, targetId: TARGET, dueAt }));
  type SweepRepos = Pick<PortRepositories, 'fireClaims' | 'timers'>;
  /** A committed sweep timer is pending (it only ends by firing); false means "read the timers table". */
  let knownArmed = false;

  scheduler.on(CLAIM_SWEEP_TIMER, async (_timer, delivery) => {
    await writer.submit(async (tx) => {
      const repos: SweepRepos = tx.repos;
      // Fired first: the re-arm below replaces only an unfired timer of this kind and target.
      knownArmed = false;
      await delivery.markFired(repos);
      const now = clock.now();
      const swept = await repos.fireClaims.sweepExpired(now, SWEEP_BATCH);
      if (swept === SWEEP_BATCH) return arm(repos, now);
      const next = await repos.fireClaims.earliestExpiry();
      if (next !== null) await arm(repos, Math.max(next, now + SWEEP_MIN_INTERVAL_MS));
    });
  });

  return {
    async armFor(tx, expiresAt) {
      if (knownArmed) return;
      if (!(await armed(tx.repos))) await arm(tx.repos, expiresAt);
      tx.afterCommit(() => void (knownArmed = true));
    },
    async start() {
      await writer.submit(async (tx) => {
        const repos: SweepRepos = tx.repos;
        if (await armed(repos)) return;
        const earliest = await repos.fireClaims.earliestExpiry();
        if (earliest !== null) await arm(repos, earliest);
      });
    },
  };
}
