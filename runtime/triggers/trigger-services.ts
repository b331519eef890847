// Builds the trigger services the routes use (fire, Run history) from the runtime's store, starter and scheduler.
import type { Scheduler } from '../scheduler/index.js';
import { createClaimSweeper, type ClaimSweeper } from './claim-sweeper.js';
import { createFireService, type FireService, type FireServiceDeps } from './fire.service.js';
import { createRunHistory, type RunHistory } from './run-history.js';

export interface TriggerServices {
  fire: FireService;
  triggerRuns: RunHistory;
  /** Started at boot: arms the sweep of expired idempotency claims. */
  claimSweeper: ClaimSweeper | null;
}

export function createTriggerServices(deps: Omit<FireServiceDeps, 'sweeper'> & { scheduler?: Scheduler }): TriggerServices {
  const { store, clock, scheduler } = deps;
  const claimSweeper = scheduler === undefined ? null : createClaimSweeper({ clock, writer: store.writer, scheduler });
  return {
    fire: createFireService({ ...deps, ...(claimSweeper === null ? {} : { sweeper: claimSweeper }) }),
    triggerRuns: createRunHistory(store.repos),
    claimSweeper,
  };
}
