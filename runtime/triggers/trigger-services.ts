// Builds the trigger services the routes use (fire, Run history) from the runtime's store, starter and scheduler.
import { createFireService, type FireService, type FireServiceDeps } from './fire.service.js';
import { createRunHistory, type RunHistory } from './run-history.js';

export interface TriggerServices {
  fire: FireService;
  triggerRuns: RunHistory;
}

export function createTriggerServices(deps: FireServiceDeps): TriggerServices {
  return { fire: createFireService(deps), triggerRuns: createRunHistory(deps.store.repos) };
}
