// Domain records for Run history: one run per firing, its subscriber results inline (storage/repos/trigger-runs.repo.ts maps them).
import type { NewClaim } from './fire-claims.js';

export type RunSource = 'api' | 'schedule' | 'event';
export type RunOutcome = 'accepted' | 'succeeded' | 'partial' | 'failed' | 'skipped';
export type SubscriberStatus = 'started' | 'skipped' | 'failed';

export interface TriggerRun {
  id: string;
  triggerId: string;
  orgId: string;
  source: RunSource;
  /** The key owner who fired (null for schedule and event firings). */
  firedBy: string | null;
  outcome: RunOutcome;
  /** Integration ids supplied with caller credentials that no subscriber used (never material). */
  unusedCredentialIntegrations: readonly string[];
  idempotencyKey: string | null;
  createdAt: number;
}

/** One subscriber's result in a run, in firing order. */
export interface SubscriberResult {
  automationId: string;
  position: number;
  status: SubscriberStatus;
  code: string | null;
  reason: string | null;
  sessionId: string | null;
}

/**
 * A run as written: its subscriber results travel with it, and so do the fire's idempotency claim and the session
 * starts the execution side has yet to write (runtime/execution/materializer.ts `PendingStart`; null when none).
 */
export interface NewTriggerRun extends TriggerRun {
  results: readonly SubscriberResult[];
  claim?: NewClaim | null;
  pending?: readonly unknown[] | null;
}

/** A run whose session starts are not yet written (runtime/execution/materializer.ts reads them). */
export interface PendingRun {
  id: string;
  pending: readonly unknown[];
}

/** A result with what the reader shows beside it (null when the automation was deleted since). */
export interface SubscriberResultView extends SubscriberResult {
  runId: string;
  automationName: string | null;
  automationKind: string | null;
}
