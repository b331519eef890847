// What the accept-only bench servers share: accepted work is neither refused nor run, so a load measures the accept path.
import type { Service } from '../index.js';
import type { ServiceConfig } from '../runtime/config.js';

/** The execution queue's bound lifted: nothing drains it while turns are held (or while a short load outruns them). */
export const UNBOUNDED_QUEUE = { queueLimitSeconds: 1_000_000, queueMaxExecutions: 100_000_000 } satisfies Partial<ServiceConfig>;

/** Accepted sessions stay queued: the materializer calls the dispatcher through this plain object (inline execution only). */
export function holdDispatch(service: Service): void {
  service.services.sessions.dispatcher.dispatch = () => undefined;
}
