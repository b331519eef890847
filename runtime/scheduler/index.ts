// Re-exports the durable timer scheduler.
export { createScheduler, TimerNotPendingError, type DueTimer, type Scheduler, type SchedulerOptions, type TimerDelivery, type TimerHandler, type TimerRepos, type TimerSpec } from './scheduler.js';
