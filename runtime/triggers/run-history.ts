// Reads a trigger's Run history: firings newest first by keyset cursor, each with per-subscriber results.
import type { PortRepositories } from '../../storage/port/storage.js';
import type { SubscriberResultView, TriggerRun } from '../../storage/records/trigger-runs.js';
import { toIso } from '../clock.js';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { assertCanReadRuns, triggerOfCaller, type TriggerCaller } from './trigger-access.js';
import { decodePosition } from '../paging/cursor.js';
import { creationCursor, probedPage } from '../paging/keyset-page.js';

export const RUNS_PAGE_DEFAULT = 20;
export const RUNS_PAGE_MAX = 100;

export interface SubscriberView {
  automationId: string;
  /** Null when the automation was deleted since the firing. */
  name: string | null;
  kind: string | null;
  status: 'started' | 'skipped' | 'failed';
  code: string | null;
  reason: string | null;
  sessionId: string | null;
}

export interface RunView {
  runId: string;
  triggerId: string;
  source: string;
  firedBy: string | null;
  /** succeeded, partial, failed or skipped (machines/trigger-firing.machine.ts firingOutcome). */
  outcome: string;
  acceptedAt: string;
  idempotencyKey: string | null;
  /** Integration ids supplied with caller credentials that no subscriber used; never the material. */
  unusedCredentialIntegrationIds: string[];
  subscribers: SubscriberView[];
}

export interface RunPage {
  runs: RunView[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export interface RunHistory {
  list(caller: TriggerCaller, triggerId: string, options: { limit?: number; cursor?: string | null }): Promise<RunPage>;
  get(caller: TriggerCaller, triggerId: string, runId: string): Promise<RunView>;
}


function view(run: TriggerRun, results: readonly SubscriberResultView[]): RunView {
  return {
    runId: run.id,
    triggerId: run.triggerId,
    source: run.source,
    firedBy: run.firedBy,
    outcome: run.outcome,
    acceptedAt: toIso(run.createdAt),
    idempotencyKey: run.idempotencyKey,
    unusedCredentialIntegrationIds: [...run.unusedCredentialIntegrations],
    subscribers: results.map((r) => ({
      automationId: r.automationId,
      name: r.automationName,
      kind: r.automationKind,
      status: r.status,
      code: r.code,
      reason: r.reason,
      sessionId: r.sessionId,
    })),
  };
}

export function createRunHistory(repos: Pick<PortRepositories, 'triggers' | 'tenancy' | 'triggerRuns'>): RunHistory {
  const runs = repos.triggerRuns;
  return {
    async list(caller, triggerId, options) {
      const trigger = await triggerOfCaller(repos, caller, triggerId);
      await assertCanReadRuns(repos, caller, trigger);
      const limit = options.limit ?? RUNS_PAGE_DEFAULT;
      const before = options.cursor ? decodePosition(options.cursor) : null;
      // One row more than asked tells whether an older page exists.
      const { rows: page, nextCursor } = probedPage(await runs.page(trigger.id, before, limit + 1), limit, creationCursor);
      const byRun = new Map<string, SubscriberResultView[]>();
      for (const result of await runs.resultsOf(page.map((r) => r.id))) {
        const list = byRun.get(result.runId) ?? [];
        list.push(result);
        byRun.set(result.runId, list);
      }
      return { runs: page.map((run) => view(run, byRun.get(run.id) ?? [])), nextCursor };
    },
    async get(caller, triggerId, runId) {
      const trigger = await triggerOfCaller(repos, caller, triggerId);
      await assertCanReadRuns(repos, caller, trigger);
      const run = isUuid(runId) ? await runs.run(runId) : undefined;
      if (run === undefined || run.triggerId !== trigger.id) throw notFound();
      return view(run, await runs.resultsOf([run.id]));
    },
  };
}
