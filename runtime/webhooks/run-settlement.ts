// Owns noticing that a trigger run's work finished and announcing it once to the organization's webhook endpoints.
/*
 * A run is finished when every subscriber that started has its session's first execution (the one the firing
 * queued) settled; skipped and failed starts count as finished at fire time, so a run that started nothing is
 * finished at once. Checks come from two places, both after commit:
 *   - the fire service wrapper (`watchFires`): every API, schedule and event firing, right after its commit;
 *   - the session event bus: every `turn.completed` of a session a firing started.
 * The announcement (a webhook_run_notices row + one pending delivery per endpoint) commits in one unit whose
 * INSERT OR IGNORE makes it happen once, whichever checks race to it. Organizations without an active endpoint
 * are not tracked at all (one indexed lookup), so firing costs nothing extra for them.
 * A crash between a settlement's commit and its check is caught at boot by `reconcile`: runs of organizations with
 * endpoints, created since the oldest endpoint (at most RECONCILE_WINDOW_MS ago), that were never announced.
 */
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { SessionEventBus } from '../events/index.js';
import type { Logger } from '../logger.js';
import type { FireService } from '../triggers/fire.service.js';
import { runCompletedPayload, RUN_COMPLETED } from './run-payload.js';
import type { WebhookDeliveries } from './webhook-deliveries.js';

export const RECONCILE_WINDOW_MS = 7 * 24 * 3_600_000;
const RECONCILE_BATCH = 10_000;

export interface RunSettlement {
  /** Checks the run after the current event-loop turn (cheap to call many times). */
  noteRun(runId: string): void;
  /** Checks now; resolves with how many deliveries were enqueued (0 when unfinished or already announced). */
  check(runId: string): Promise<number>;
  /** Wraps the fire service so every committed firing is checked. */
  watchFires(fire: FireService): FireService;
  /** Boot: announces finished runs whose check was lost to a crash. */
  reconcile(): Promise<number>;
  /** Resolves once queued checks are done (tests, shutdown). */
  idle(): Promise<void>;
  close(): void;
}

export interface RunSettlementDeps {
  store: Storage;
  clock: Clock;
  logger: Pick<Logger, 'error'>;
  bus: Pick<SessionEventBus, 'observe'>;
  deliveries: WebhookDeliveries;
}

export function createRunSettlement(deps: RunSettlementDeps): RunSettlement {
  const { store, clock, deliveries } = deps;
  const { repos } = store;
  const queuedRuns = new Set<string>();
  const queuedSessions = new Set<string>();
  let flushing: Promise<void> = Promise.resolve();
  let scheduled = false;

  async function check(runId: string): Promise<number> {
    const run = await repos.triggerRuns.run(runId);
    if (run === undefined || !(await repos.webhooks.hasActiveEndpoints(run.orgId))) return 0;
    return store.writer.submit(async (tx) => {
      const states = await tx.repos.webhooks.runState(runId);
      if (states.some((s) => s.startStatus === 'started' && s.settledAt === null)) return 0;
      const now = clock.now();
      if (!(await tx.repos.webhooks.insertRunNotice(runId, run.orgId, now))) return 0;
      const payload = runCompletedPayload(run, await tx.repos.triggers.trigger(run.triggerId), states, now);
      return (await deliveries.enqueue(tx.repos, run.orgId, RUN_COMPLETED, JSON.stringify(payload), runId)).length;
    });
  }

  async function flush(): Promise<void> {
    scheduled = false;
    for (const sessionId of queuedSessions) {
      const session = await repos.sessions.session(sessionId);
      // The session's organization is the run's: without an active endpoint `check` would read the run only to
      // answer 0, so the run row is not read at all (a cached lookup; most organizations have no endpoint).
      if (session?.triggerRunId && (await repos.webhooks.hasActiveEndpoints(session.orgId))) queuedRuns.add(session.triggerRunId);
    }
    queuedSessions.clear();
    const runs = [...queuedRuns];
    queuedRuns.clear();
    const results = await Promise.allSettled(runs.map(check));
    results.forEach((r, i) => {
      if (r.status === 'rejected') deps.logger.error({ runId: runs[i], err: r.reason instanceof Error ? r.reason.message : String(r.reason) }, 'run settlement check failed');
    });
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      // Never a rejected chain: a lookup that fails (the database going away at shutdown) is logged, not left as an
      // unhandled rejection that would fail the process.
      flushing = flushing.then(flush).catch((error: unknown) => {
        deps.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'run settlement flush failed');
      });
    });
  }

  const stopObserving = deps.bus.observe((envelopes) => {
    for (const envelope of envelopes) {
      if (envelope.event.type !== 'turn.completed') continue;
      queuedSessions.add(envelope.sessionId);
      schedule();
    }
  });

  const noteRun = (runId: string): void => {
    queuedRuns.add(runId);
    schedule();
  };
  /** A firing's run, unless its organization has no active endpoint (most have none): then there is nothing to announce. */
  const noteFiring = async (runId: string, orgId: string): Promise<void> => {
    if (await repos.webhooks.hasActiveEndpoints(orgId)) noteRun(runId);
  };

  return {
    noteRun,
    check,
    watchFires(fire) {
      return {
        async fire(...args) {
          const answer = await fire.fire(...args);
          // The fired trigger is in the caller's organization (runtime/triggers/trigger-access.ts).
          if (!answer.replayed) await noteFiring(answer.body.runId, args[0].orgId);
          return answer;
        },
        async fanOut(request, alsoWrite) {
          const result = await fire.fanOut(request, alsoWrite);
          await noteFiring(result.runId, request.trigger.orgId);
          return result;
        },
      };
    },
    async reconcile() {
      let enqueued = 0;
      const floor = clock.now() - RECONCILE_WINDOW_MS;
      for (const { orgId, since } of await repos.webhooks.organizationsWithEndpoints()) {
        for (const runId of await repos.webhooks.unannouncedRuns(orgId, Math.max(since, floor), RECONCILE_BATCH)) enqueued += await check(runId);
      }
      return enqueued;
    },
    async idle() {
      while (scheduled || queuedRuns.size > 0 || queuedSessions.size > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        await flushing;
      }
      await flushing;
    },
    close: stopObserving,
  };
}
