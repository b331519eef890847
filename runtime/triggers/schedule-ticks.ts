// Owns schedule triggers' ticks: one durable timer per active schedule trigger, fired through the fire service.
/*
 * A tick is a durable timer (kind `schedule-tick`, target = trigger id) due at the next cron slot in the trigger's
 * IANA zone. Delivering it fires the trigger (source `schedule`, no caller: SPEC Trigger firing rule 7, so
 * caller-required subscribers are refused with CALLER_CREDENTIALS_REQUIRED) and arms the next slot, in the same
 * unit of work as the firing and the timer's markFired: a tick fires exactly once.
 *
 * Missed ticks (docs/decisions.md): the next slot is computed from the time the tick is handled, not from the slot
 * it was due at. A service that was down across several slots therefore fires ONCE at boot (the overdue timer)
 * and then waits for the next future slot; it never replays one firing per missed slot.
 *
 * The timer remembers the cron and zone it was armed for. `reconcile` (boot, and after a manifest is applied)
 * gives every active schedule trigger exactly one tick matching its current config and removes the ticks of
 * inactive ones; a tick whose trigger changed since it was armed re-arms instead of firing.
 */
import type { Trigger } from '../../storage/records/triggers.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Scheduler, TimerRepos } from '../scheduler/index.js';
import type { FireService } from './fire.service.js';
import { nextRunAfter, scheduleConfigOf, type ScheduleConfig } from './schedule-next.js';

export const SCHEDULE_TICK = 'schedule-tick';

interface TickPayload {
  cron: string;
  timezone: string | null;
}

export interface ScheduleTicks {
  /** Inside the caller's unit (`tx.repos`): arms the trigger's next tick strictly after `afterMs`; the due time, or null if it never fires again. */
  arm(repos: TimerRepos, triggerId: string, config: Pick<ScheduleConfig, 'cron' | 'timezone'>, afterMs: number): Promise<number | null>;
  /** Inside the caller's unit (`tx.repos`): removes the trigger's pending tick (paused, retyped or deleted); true when one was pending. */
  disarm(repos: TimerRepos, triggerId: string): Promise<boolean>;
  /** When the trigger's pending tick is due (null when none is armed). */
  nextRunAt(triggerId: string): Promise<number | null>;
  /** Arms every active schedule trigger lacking a current tick and disarms inactive ones; returns how many changed. */
  reconcile(): Promise<number>;
}

export interface ScheduleTicksDeps {
  store: Storage;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'warn'>;
  scheduler: Scheduler;
  fire: Pick<FireService, 'fanOut'>;
}

const armedFor = (payload: unknown): TickPayload | null => {
  const p = payload as Partial<TickPayload> | null;
  return p && typeof p.cron === 'string' ? { cron: p.cron, timezone: typeof p.timezone === 'string' ? p.timezone : null } : null;
};

const isCurrent = (payload: unknown, config: ScheduleConfig): boolean => {
  const armed = armedFor(payload);
  return armed !== null && armed.cron === config.cron && armed.timezone === config.timezone;
};

const isLive = (trigger: Trigger | undefined): trigger is Trigger => trigger !== undefined && trigger.type === 'schedule' && trigger.active;

export function createScheduleTicks(deps: ScheduleTicksDeps): ScheduleTicks {
  const { store, clock, scheduler } = deps;
  const { repos } = store;

  async function arm(unitRepos: TimerRepos, triggerId: string, config: Pick<ScheduleConfig, 'cron' | 'timezone'>, afterMs: number): Promise<number | null> {
    const dueAt = nextRunAfter(config, afterMs);
    if (dueAt === null) {
      await scheduler.cancel(unitRepos, SCHEDULE_TICK, triggerId);
      return null;
    }
    const payload: TickPayload = { cron: config.cron, timezone: config.timezone };
    await scheduler.schedule(unitRepos, { kind: SCHEDULE_TICK, targetId: triggerId, dueAt, payload });
    return dueAt;
  }

  scheduler.on(SCHEDULE_TICK, async (timer, delivery) => {
    const trigger = await repos.triggers.trigger(timer.targetId);
    // Deleted, paused or retyped since it was armed: the tick lapses (the scheduler marks it fired); reconcile
    // arms a fresh one if the trigger becomes an active schedule again.
    if (!isLive(trigger)) return;
    const config = scheduleConfigOf(trigger.config);
    // A suspended customer's slots pass without firing; the next one is armed, so resuming needs no reconcile.
    if (!isCurrent(timer.payload, config) || ((await repos.tenancy.organization(trigger.orgId))?.suspendedAt ?? null) !== null) {
      await store.writer.submit(async (tx) => {
        await delivery.markFired(tx.repos);
        await arm(tx.repos, trigger.id, config, clock.now());
      });
      return;
    }
    const result = await deps.fire.fanOut(
      { trigger, source: 'schedule', firedBy: null, input: config.input, credentials: null, credentialExpiresAt: null },
      async (unitRepos, _runId, now) => {
        await delivery.markFired(unitRepos);
        // From now, not from the slot it was due at: slots missed while the service was down are skipped.
        await arm(unitRepos, trigger.id, config, now);
      },
    );
    result.dispatch();
  });

  return {
    arm,
    disarm: (unitRepos, triggerId) => scheduler.cancel(unitRepos, SCHEDULE_TICK, triggerId),
    nextRunAt: async (triggerId) => (await repos.timers.pending(SCHEDULE_TICK, triggerId))?.dueAt ?? null,
    reconcile() {
      return store.writer.submit(async (tx) => {
        const unitRepos: Pick<PortRepositories, 'triggers' | 'timers'> = tx.repos;
        const now = clock.now();
        let changed = 0;
        for (const trigger of await unitRepos.triggers.triggersOfType('schedule')) {
          const pending = await unitRepos.timers.pending(SCHEDULE_TICK, trigger.id);
          if (!trigger.active) {
            if (pending !== undefined && (await scheduler.cancel(unitRepos, SCHEDULE_TICK, trigger.id))) changed += 1;
            continue;
          }
          const config = scheduleConfigOf(trigger.config);
          if (pending !== undefined && isCurrent(pending.payload, config)) continue;
          await arm(unitRepos, trigger.id, config, now);
          changed += 1;
        }
        return changed;
      });
    },
  };
}
