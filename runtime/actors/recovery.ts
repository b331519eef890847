// Boot recovery: every 'active' actor snapshot is offered to its kind's recovery handler, then due timers fire once.
/*
 * The owning feature decides per actor: resume queued or running work, fail an in-flight step that is unsafe
 * to retry (recording why, through registry.transition), or leave a suspended turn as it is. Kinds without a
 * handler are left untouched (rehydrated on demand). Rows of kinds this build does not register stay 'active'
 * and are reported. Unrestorable rows (machine version mismatch, bad JSON) reach the kind's onFailure through
 * the registry. Only after every offer is handled does the scheduler start, so timers that fell due while the
 * process was down fire once, against actors their owners have already recovered.
 */
import type { AnyStateMachine, SnapshotFrom } from 'xstate';
import type { SnapshotRepos } from './registry-types.js';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { ActorFailureError, errorMessage } from './actor-failure.js';
import type { ActorRegistry, MachineMap } from './registry-types.js';

export interface RecoveryOffer<M extends AnyStateMachine = AnyStateMachine> {
  readonly kind: string;
  readonly id: string;
  /** The restored snapshot (matches/can work); the actor itself is not made resident by the offer. */
  readonly snapshot: SnapshotFrom<M>;
  readonly updatedAt: number;
}

export type RecoveryHandler<M extends AnyStateMachine = AnyStateMachine> = (offer: RecoveryOffer<M>) => void | Promise<void>;

export interface RecoveryReport {
  /** Actors handed to a recovery handler. */
  offered: number;
  /** Active actors of registered kinds that have no recovery handler: left as they are. */
  kept: number;
  /** Rows that could not be restored (their owner was told through onFailure). */
  unrestorable: number;
  /** Handler calls that threw; logged, the actor left as it was. */
  handlerFailures: number;
  /** Active rows per kind this build does not register. */
  unregistered: Record<string, number>;
  /** Timers delivered by the scheduler's first drain. */
  timersFired: number;
}

export interface BootRecovery<K extends MachineMap = MachineMap> {
  on<N extends keyof K & string>(kind: N, handler: RecoveryHandler<K[N]>): void;
  run(): Promise<RecoveryReport>;
}

export interface BootRecoveryOptions<K extends MachineMap> {
  store: { repos: SnapshotRepos };
  registry: ActorRegistry<K>;
  scheduler: { start(): Promise<number> };
  /** Rows read per page (default 500). */
  pageSize?: number;
  /** Handlers running at once (default 32), so their steps share group commits. */
  concurrency?: number;
  /** Where restarts and handler failures are reported (default: the service's pino logger at warn). */
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function createBootRecovery<K extends MachineMap = MachineMap>(options: BootRecoveryOptions<K>): BootRecovery<K> {
  const { registry, scheduler } = options;
  const snapshots = options.store.repos.snapshots;
  const pageSize = options.pageSize ?? 500;
  const concurrency = options.concurrency ?? 32;
  const logger = options.logger ?? createLogger('warn');
  const handlers = new Map<string, RecoveryHandler>();
  let ran = false;

  async function recoverKind(kind: string, handler: RecoveryHandler, report: RecoveryReport): Promise<void> {
    let after = 0;
    for (;;) {
      const page = await snapshots.activePage(kind, after, pageSize);
      if (page.length === 0) return;
      after = page[page.length - 1].rowid;
      await forEachLimited(page, concurrency, async (row) => {
        let snapshot: SnapshotFrom<AnyStateMachine> | undefined;
        try {
          snapshot = await registry.peek(kind, row.actorId);
        } catch (error) {
          if (!(error instanceof ActorFailureError)) throw error;
          report.unrestorable += 1;
          return;
        }
        if (snapshot === undefined) return;
        report.offered += 1;
        try {
          await handler({ kind, id: row.actorId, snapshot, updatedAt: row.updatedAt });
        } catch (error) {
          report.handlerFailures += 1;
          logger.error({ kind, actorId: row.actorId, err: errorMessage(error) }, 'boot recovery handler failed');
        }
      });
    }
  }

  return {
    on(kind, handler) {
      if (handlers.has(kind)) throw new AppError('INTERNAL', `A recovery handler for "${kind}" is already registered.`);
      if (!registry.kinds().includes(kind)) throw new AppError('INTERNAL', `Actor kind "${kind}" is not registered.`);
      handlers.set(kind, handler as RecoveryHandler);
    },
    async run() {
      if (ran) throw new AppError('INTERNAL', 'Boot recovery runs once per process.');
      ran = true;
      const report: RecoveryReport = { offered: 0, kept: 0, unrestorable: 0, handlerFailures: 0, unregistered: {}, timersFired: 0 };
      const registered = new Set(registry.kinds());
      for (const { machine, count } of await snapshots.activeKinds()) {
        if (!registered.has(machine)) report.unregistered[machine] = count;
        else if (!handlers.has(machine)) report.kept += count;
      }
      if (Object.keys(report.unregistered).length > 0) {
        logger.warn({ unregistered: report.unregistered }, 'active actor snapshots of kinds this build does not register');
      }
      for (const [kind, handler] of handlers) await recoverKind(kind, handler, report);
      report.timersFired = await scheduler.start();
      return report;
    },
  };
}
