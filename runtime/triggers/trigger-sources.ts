// Builds what creates and feeds triggers besides API fires: POST /triggers, schedule ticks, inbound event deliveries.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../scheduler/index.js';
import type { KeyRing } from '../vault/index.js';
import { createEventDeliveryService, type EventDeliveryService } from './event-delivery.service.js';
import type { FireService } from './fire.service.js';
import { createScheduleTicks, type ScheduleTicks } from './schedule-ticks.js';
import { createTriggerAdmin, type TriggerAdmin } from './trigger-admin.service.js';

export interface TriggerSourceServices {
  triggerAdmin: TriggerAdmin;
  scheduleTicks: ScheduleTicks;
  eventDeliveries: EventDeliveryService;
}

export interface TriggerSourcesDeps {
  store: Storage;
  clock: Clock;
  logger: Logger;
  keyRing: KeyRing;
  scheduler: Scheduler;
  /** Schedule and event firings go through the same fan-out as API fires (no caller credentials). */
  fire: Pick<FireService, 'fanOut'>;
  /** Deepest nesting an inbound event body may have (config.jsonMaxDepth). */
  jsonMaxDepth?: number;
}

export function createTriggerSources(deps: TriggerSourcesDeps): TriggerSourceServices {
  const scheduleTicks = createScheduleTicks(deps);
  return {
    scheduleTicks,
    triggerAdmin: createTriggerAdmin({ ...deps, scheduleTicks }),
    eventDeliveries: createEventDeliveryService(deps),
  };
}
