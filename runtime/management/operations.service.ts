// What runs right now in one organization (issue 14 item 8): turns, approvals, fires, webhook failures, and process-wide load.
import type { PortRepositories } from '../../storage/port/storage.js';
import { HOUR, toIso, type Clock } from '../clock.js';
import type { SessionEventBus } from '../events/event-bus.js';
import type { Admission } from '../execution/admission.js';
import { requireOrgAdmin, type Manager } from './org-access.js';

/** Fires per second are averaged over this window: short enough to follow a burst, long enough not to flicker. */
export const FIRE_WINDOW_SECONDS = 10;
/** Webhook failures are counted over deliveries created in the last day. */
export const WEBHOOK_WINDOW_HOURS = 24;

export interface OperationsSnapshot {
  at: string;
  organization: {
    turns: { queued: number; running: number; resumeQueued: number; suspended: number };
    pendingApprovals: number;
    fires: { windowSeconds: number; count: number; perSecond: number };
    webhooks: { windowHours: number; failed: number; retrying: number; lastFailureAt: string | null };
  };
  /** Shared by every organization on this process: not scoped, labelled as such. */
  process: { openStreams: number; streamedSessions: number; queuedExecutions: number; queueLimit: number };
}

export interface OperationsDeps {
  store: { repos: Pick<PortRepositories, 'tenancy' | 'operations'> };
  clock: Clock;
  events: Pick<SessionEventBus, 'stats'>;
  admission: Pick<Admission, 'stats'>;
}

/** Owners and Admins only (403 otherwise); a handful of indexed reads and two in-memory counters. */
export async function operationsSnapshot(deps: OperationsDeps, manager: Manager): Promise<OperationsSnapshot> {
  const { repos } = deps.store;
  await requireOrgAdmin(repos, manager);
  const now = deps.clock.now();
  // Independent reads outside any unit: asked together.
  const [unsettledRows, waiting, fires, webhooks] = await Promise.all([
    repos.operations.unsettledExecutions(manager.orgId),
    repos.operations.awaitingApproval(manager.orgId),
    repos.operations.firesSince(manager.orgId, now - FIRE_WINDOW_SECONDS * 1000),
    repos.operations.webhooksSince(manager.orgId, now - WEBHOOK_WINDOW_HOURS * HOUR),
  ]);
  const unsettled = new Map(unsettledRows.map((row) => [row.status, row.count]));
  const stream = deps.events.stats();
  const queue = deps.admission.stats();
  return {
    at: toIso(now),
    organization: {
      turns: { queued: unsettled.get('queued') ?? 0, running: unsettled.get('running') ?? 0, resumeQueued: unsettled.get('resume_queued') ?? 0, suspended: waiting.executions },
      pendingApprovals: waiting.approvals,
      fires: { windowSeconds: FIRE_WINDOW_SECONDS, count: fires, perSecond: Math.round((fires / FIRE_WINDOW_SECONDS) * 100) / 100 },
      webhooks: { windowHours: WEBHOOK_WINDOW_HOURS, failed: webhooks.failed, retrying: webhooks.retrying, lastFailureAt: webhooks.lastFailureAt === null ? null : toIso(webhooks.lastFailureAt) },
    },
    process: { openStreams: stream.subscribers, streamedSessions: stream.sessions, queuedExecutions: queue.queued, queueLimit: queue.limit },
  };
}
