// What runs right now in one organization (issue 14 item 8): turns, approvals, fires, webhook failures, and process-wide load.
import type { Repositories } from '../../storage/repos/index.js';
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
  store: { repos: Pick<Repositories, 'tenancy' | 'operations'> };
  clock: Clock;
  events: Pick<SessionEventBus, 'stats'>;
  admission: Pick<Admission, 'stats'>;
}

/** Owners and Admins only (403 otherwise); a handful of indexed reads and two in-memory counters. */
export function operationsSnapshot(deps: OperationsDeps, manager: Manager): OperationsSnapshot {
  const { repos } = deps.store;
  requireOrgAdmin(repos, manager);
  const now = deps.clock.now();
  const unsettled = new Map(repos.operations.unsettledExecutions(manager.orgId).map((row) => [row.status, row.count]));
  const waiting = repos.operations.awaitingApproval(manager.orgId);
  const fires = repos.operations.firesSince(manager.orgId, now - FIRE_WINDOW_SECONDS * 1000);
  const webhooks = repos.operations.webhooksSince(manager.orgId, now - WEBHOOK_WINDOW_HOURS * HOUR);
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
